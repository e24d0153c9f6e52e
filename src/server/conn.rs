//! The server's connections, each bounded both ways and known to the accept loop:
//! - [`Socket`]: a connection's socket whose writes time out (a client that never reads
//!   its answers cannot hold the connection once its buffers are full), and whose answers
//!   that hyper writes on its own (a request head it cannot read or that is too large)
//!   go out as JSON, as every other error does;
//! - [`Connections`]: what the accept loop knows of the connections open: which are idle
//!   (no request being answered), so that at the limit the one idle longest is shed and a
//!   new client is answered at once;
//! - [`HostCheck`]: the names the server answers to (its own address, `localhost`, the
//!   names it was told to serve), so that a page that rebinds its own name to this
//!   machine's address (DNS rebinding) can neither read nor start anything.

use std::collections::HashMap;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// The largest request head read, in bytes (request line and header fields).
pub const MAX_HEAD: usize = 32 * 1024;
/// The most header fields a request may have.
pub const MAX_HEADERS: usize = 100;

/// One connection as the accept loop sees it.
pub struct Connection {
    id: u64,
    /// Requests being answered on it now.
    busy: AtomicUsize,
    /// When it last became idle, in milliseconds from the start of [`Connections`].
    idle_since: AtomicU64,
    /// Told to close (shed); set once.
    shed: AtomicBool,
    /// Wakes the connection's task when it is shed.
    wake: tokio::sync::Notify,
}

impl Connection {
    /// Waits until the connection is shed.
    pub async fn shed(&self) {
        self.wake.notified().await;
    }
}

/// A request being answered: the connection is busy until it is dropped.
pub struct Busy(Arc<Connection>, Arc<Connections>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.idle_since.store(self.1.now(), Relaxed);
        self.0.busy.fetch_sub(1, Relaxed);
    }
}

/// The connections open now.
pub struct Connections {
    open: Mutex<HashMap<u64, Arc<Connection>>>,
    next: AtomicU64,
    epoch: Instant,
}

impl Default for Connections {
    fn default() -> Self {
        Connections {
            open: Mutex::new(HashMap::new()),
            next: AtomicU64::new(0),
            epoch: Instant::now(),
        }
    }
}

impl Connections {
    fn now(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    /// A new connection, idle from now.
    pub fn open(&self) -> Arc<Connection> {
        let c = Arc::new(Connection {
            id: self.next.fetch_add(1, Relaxed),
            busy: AtomicUsize::new(0),
            idle_since: AtomicU64::new(self.now()),
            shed: AtomicBool::new(false),
            wake: tokio::sync::Notify::new(),
        });
        self.open.lock().expect("lock").insert(c.id, c.clone());
        c
    }

    /// The connection has ended.
    pub fn close(&self, c: &Connection) {
        self.open.lock().expect("lock").remove(&c.id);
    }

    /// Marks a request on `c` as being answered until the guard is dropped.
    pub fn busy(self: &Arc<Self>, c: &Arc<Connection>) -> Busy {
        c.busy.fetch_add(1, Relaxed);
        Busy(c.clone(), self.clone())
    }

    /// Tells the connection idle longest (no request being answered on it: a keep-alive
    /// connection between requests, a socket that has sent nothing, a head sent slowly)
    /// to close; whether there was one.
    pub fn shed_idlest(&self) -> bool {
        let open = self.open.lock().expect("lock");
        let idlest = open
            .values()
            .filter(|c| c.busy.load(Relaxed) == 0 && !c.shed.load(Relaxed))
            .min_by_key(|c| (c.idle_since.load(Relaxed), c.id));
        match idlest {
            Some(c) => {
                c.shed.store(true, Relaxed);
                c.wake.notify_one();
                true
            }
            None => false,
        }
    }

    /// Connections open now.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.open.lock().expect("lock").len()
    }
}

/// The names a request's `Host` may give: the address the connection came in on (the
/// server's own), loopback addresses, `localhost`, and the names the server was told to
/// serve.
#[derive(Clone, Debug, Default)]
pub struct HostCheck {
    names: Vec<String>,
}

impl HostCheck {
    /// Answering to `names` besides its own addresses and `localhost` (a name given to
    /// `--host`, the names of `--allow-host`; addresses among them are ignored).
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> HostCheck {
        HostCheck {
            names: names
                .into_iter()
                .map(|n| n.trim().trim_end_matches('.').to_ascii_lowercase())
                .filter(|n| !n.is_empty() && n.parse::<IpAddr>().is_err())
                .collect(),
        }
    }

    /// Whether a request with `host` (the `Host` header, port and all) that came in on
    /// `local` is addressed to this server. A request without one (HTTP/1.0) is: a browser
    /// always sends one.
    pub fn allows(&self, host: Option<&[u8]>, local: IpAddr) -> bool {
        let Some(host) = host else { return true };
        let Ok(host) = std::str::from_utf8(host) else {
            return false;
        };
        let name = host_name(host.trim());
        if let Ok(ip) = name.parse::<IpAddr>() {
            return ip == local || ip.is_loopback() || same_v4(ip, local);
        }
        let name = name.trim_end_matches('.').to_ascii_lowercase();
        name == "localhost" || self.names.contains(&name)
    }
}

/// An IPv4 address and the same address mapped into IPv6 (a dual-stack socket).
fn same_v4(a: IpAddr, b: IpAddr) -> bool {
    let v4 = |ip: IpAddr| match ip {
        IpAddr::V4(v) => Some(v),
        IpAddr::V6(v) => v.to_ipv4_mapped(),
    };
    v4(a).is_some() && v4(a) == v4(b)
}

/// The name or address of a `Host` value, without its port: `[::1]:8080` → `::1`,
/// `localhost:8080` → `localhost`.
fn host_name(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match host.rsplit_once(':') {
        // (a bare IPv6 address has several colons and no port)
        Some((name, port)) if !name.contains(':') && port.bytes().all(|b| b.is_ascii_digit()) => {
            name
        }
        _ => host,
    }
}

/// A connection's socket: writes that make no progress for `write_timeout` fail (the
/// connection then ends), and the bodiless error answers hyper writes on its own when it
/// cannot read a request head go out as JSON.
pub struct Socket<S> {
    inner: S,
    write_timeout: Duration,
    /// Armed while a write waits for the client to read.
    write_deadline: Option<Pin<Box<Sleep>>>,
    /// Bytes of an answer of ours still to write, in place of hyper's.
    pending: Vec<u8>,
}

impl<S> Socket<S> {
    pub fn new(inner: S, write_timeout: Duration) -> Socket<S> {
        Socket {
            inner,
            write_timeout,
            write_deadline: None,
            pending: Vec::new(),
        }
    }
}

/// hyper's own answer to a request it could not read (`HTTP/1.1 400 …` or `431`, `414`,
/// with no body), as JSON: the same status, a message that says what was wrong and the
/// bound, and the connection closed.
fn json_answer_for(head: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(head).ok()?;
    let line = text.split("\r\n").next()?;
    let mut words = line.splitn(3, ' ');
    let version = words.next()?;
    if !version.starts_with("HTTP/1.") || !text.contains("\r\n\r\n") {
        return None;
    }
    let lower = text.to_ascii_lowercase();
    if !lower.contains("\r\ncontent-length: 0\r\n") || lower.contains("\r\ncontent-type:") {
        return None;
    }
    let status: u16 = words.next()?.parse().ok()?;
    let reason = words.next().unwrap_or("");
    let message = match status {
        431 => format!(
            "the request head is too large: at most {MAX_HEAD} bytes and {MAX_HEADERS} header fields"
        ),
        414 => format!(
            "the request target is too long; at most {} bytes",
            super::MAX_URI
        ),
        400 => "the request head could not be read as HTTP/1.1 (its method, target, version or a header field is malformed)".to_string(),
        401..=499 => format!("the request could not be read ({status} {reason})"),
        _ => return None,
    };
    let body = serde_json::json!({ "error": message }).to_string();
    Some(
        format!(
            "{version} {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
    )
}

impl<S: AsyncWrite + Unpin> Socket<S> {
    /// Writes what is pending of an answer of ours.
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while !self.pending.is_empty() {
            let n = match Pin::new(&mut self.inner).poll_write(cx, &self.pending) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => n,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return self.poll_deadline(cx),
            };
            self.write_deadline = None;
            self.pending.drain(..n);
        }
        Poll::Ready(Ok(()))
    }

    /// A write that cannot go on: arms the deadline, and fails once it has passed.
    fn poll_deadline<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let timeout = self.write_timeout;
        let deadline = self
            .write_deadline
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the client read nothing for {} s", timeout.as_secs_f64()),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Socket<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Socket<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        match this.poll_pending(cx) {
            Poll::Ready(Ok(())) => {}
            Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
            Poll::Pending => return Poll::Pending,
        }
        if let Some(answer) = json_answer_for(buf) {
            // (hyper's answer is taken as written; ours goes out in its place)
            this.pending = answer;
            return match this.poll_pending(cx) {
                Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
                _ => Poll::Ready(Ok(buf.len())),
            };
        }
        match Pin::new(&mut this.inner).poll_write(cx, buf) {
            Poll::Ready(r) => {
                this.write_deadline = None;
                Poll::Ready(r)
            }
            Poll::Pending => this.poll_deadline(cx),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        // one slice at a time, each looked at as `poll_write` does
        match bufs.iter().find(|b| !b.is_empty()) {
            Some(b) => self.poll_write(cx, b),
            None => Poll::Ready(Ok(0)),
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        match this.poll_pending(cx) {
            Poll::Ready(Ok(())) => {}
            other => return other,
        }
        match Pin::new(&mut this.inner).poll_flush(cx) {
            Poll::Pending => this.poll_deadline(cx),
            r => r,
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        match this.poll_pending(cx) {
            Poll::Ready(Ok(())) => {}
            other => return other,
        }
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_the_server_answers_to() {
        let local: IpAddr = "127.0.0.1".parse().unwrap();
        let check = HostCheck::new(["canju.example", "10.0.0.1"]);
        for ok in [
            "127.0.0.1:8080",
            "127.0.0.1",
            "localhost:8080",
            "LOCALHOST",
            "localhost.",
            "[::1]:8080",
            "canju.example:80",
            "Canju.Example",
        ] {
            assert!(check.allows(Some(ok.as_bytes()), local), "{ok}");
        }
        for refused in [
            "evil.example:8080",
            "localhost.evil.example",
            "10.0.0.1:8080",
            "192.168.1.5",
            "",
            "canju.example.evil",
        ] {
            assert!(!check.allows(Some(refused.as_bytes()), local), "{refused}");
        }
        assert!(!check.allows(Some(b"\xff"), local));
        assert!(check.allows(None, local));
        // a server listening on every address: the address the request came in on
        let lan: IpAddr = "192.168.1.5".parse().unwrap();
        assert!(check.allows(Some(b"192.168.1.5:8080"), lan));
        assert!(!check.allows(Some(b"192.168.1.6:8080"), lan));
        assert!(check.allows(Some(b"192.168.1.5"), "::ffff:192.168.1.5".parse().unwrap()));
    }

    #[test]
    fn hypers_own_error_answers_become_json() {
        let hyper = b"HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\ncontent-length: 0\r\ndate: Mon, 07 Dec 2026 07:38:07 GMT\r\n\r\n";
        let ours = String::from_utf8(json_answer_for(hyper).unwrap()).unwrap();
        assert!(ours.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
        let (head, body) = ours.split_once("\r\n\r\n").unwrap();
        assert!(head.contains("content-type: application/json"));
        assert!(head.contains(&format!("content-length: {}", body.len())));
        let j: serde_json::Value = serde_json::from_str(body).unwrap();
        assert!(j["error"].as_str().unwrap().contains("32768 bytes"), "{j}");
        let bad = b"HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n";
        assert!(json_answer_for(bad).is_some());
        // the application's answers are left alone
        let app = b"HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 0\r\n\r\n";
        assert!(json_answer_for(app).is_none());
        assert!(json_answer_for(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").is_none());
        assert!(json_answer_for(b"{\"error\": \"HTTP/1.1 400\"}").is_none());
    }

    #[test]
    fn the_idlest_connection_is_shed_never_a_busy_one() {
        let all = Arc::new(Connections::default());
        let a = all.open();
        std::thread::sleep(Duration::from_millis(5));
        let b = all.open();
        let busy = all.busy(&a);
        assert!(all.shed_idlest());
        assert!(b.shed.load(Relaxed) && !a.shed.load(Relaxed));
        // b is already told; a is busy
        assert!(!all.shed_idlest());
        drop(busy);
        assert!(all.shed_idlest());
        assert!(a.shed.load(Relaxed));
        all.close(&a);
        all.close(&b);
        assert_eq!(all.len(), 0);
    }
}
