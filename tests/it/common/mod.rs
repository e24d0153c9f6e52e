//! Helpers shared by the integration tests: a seeded generator of random legal positions.
#![allow(dead_code)]

use canju::{Color, Kind, Piece, Position, Setup, Square};

/// A small deterministic PRNG (xorshift64*), so failures reproduce from the seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A random legal position with up to `max_pieces` pieces (generals included).
pub fn random_position(rng: &mut Rng, max_pieces: usize) -> Position {
    loop {
        let turn = if rng.below(2) == 0 {
            Color::Red
        } else {
            Color::Black
        };
        let mut setup = Setup::empty(turn);
        let mut used = [false; 90];
        let place = |setup: &mut Setup, used: &mut [bool; 90], rng: &mut Rng, p: Piece| {
            let squares: Vec<Square> = Square::all()
                .filter(|&s| p.can_stand_on(s) && !used[s.index()])
                .collect();
            if !squares.is_empty() {
                let s = squares[rng.below(squares.len())];
                used[s.index()] = true;
                setup.put(s, p);
            }
        };
        for c in Color::ALL {
            place(&mut setup, &mut used, rng, Piece::new(c, Kind::General));
        }
        let extra = rng.below(max_pieces.saturating_sub(1));
        let mut counts = [[0u8; 7]; 2];
        for _ in 0..extra {
            let c = Color::ALL[rng.below(2)];
            let k = Kind::ALL[1 + rng.below(6)];
            if counts[c.index()][k.index()] < k.max_count() {
                counts[c.index()][k.index()] += 1;
                place(&mut setup, &mut used, rng, Piece::new(c, k));
            }
        }
        if let Ok(p) = setup.into_position() {
            return p;
        }
    }
}

/// A random legal position whose soldiers crowd onto two or three files, so that tandem
/// soldiers (前/中/后, 一..五, 前七) come up often; other pieces are sprinkled in.
pub fn crowded_soldiers(rng: &mut Rng) -> Position {
    loop {
        let turn = if rng.below(2) == 0 {
            Color::Red
        } else {
            Color::Black
        };
        let mut setup = Setup::empty(turn);
        let mut used = [false; 90];
        let files: Vec<u8> = (0..3).map(|_| rng.below(9) as u8).collect();
        let mut put = |setup: &mut Setup, rng: &mut Rng, p: Piece, only_files: bool| {
            let squares: Vec<Square> = Square::all()
                .filter(|&s| p.can_stand_on(s) && !used[s.index()])
                .filter(|s| !only_files || files.contains(&s.file().index()))
                .collect();
            if !squares.is_empty() {
                let s = squares[rng.below(squares.len())];
                used[s.index()] = true;
                setup.put(s, p);
            }
        };
        for c in Color::ALL {
            put(&mut setup, rng, Piece::new(c, Kind::General), false);
            for _ in 0..rng.below(6) {
                put(&mut setup, rng, Piece::new(c, Kind::Soldier), true);
            }
            for _ in 0..rng.below(3) {
                let k = Kind::ALL[1 + rng.below(5)];
                let crowd = rng.below(2) == 0;
                put(&mut setup, rng, Piece::new(c, k), crowd);
            }
        }
        if let Ok(p) = setup.into_position() {
            return p;
        }
    }
}

/// Plays up to `plies` random legal moves.
pub fn random_walk(rng: &mut Rng, mut pos: Position, plies: usize) -> Position {
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        pos.play_unchecked(moves[rng.below(moves.len())]);
    }
    pos
}

/// The FENs of the perft suite.
pub fn perft_fens() -> Vec<String> {
    include_str!("../../data/perft.epd")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split(';').next().unwrap().trim().to_string())
        .collect()
}

/// Positions for round-trip tests: the perft suite after 0..=3 random plies, and random
/// legal positions with up to 32 pieces.
pub fn sample_positions(seed: u64, random: usize) -> Vec<Position> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    for fen in perft_fens() {
        let start: Position = fen.parse().unwrap();
        for plies in 0..=3 {
            for _ in 0..4 {
                out.push(random_walk(&mut rng, start.clone(), plies));
            }
        }
    }
    for i in 0..random {
        let n = 2 + i % 31;
        out.push(random_position(&mut rng, n));
        out.push(crowded_soldiers(&mut rng));
    }
    out
}

/// A fresh directory under the system temp dir, removed on drop.
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("canju-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }

    pub fn arg(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What the test process removes (directories) and stops (servers, by pid) when it exits.
static AT_EXIT: std::sync::Mutex<Vec<(std::path::PathBuf, Option<u32>)>> =
    std::sync::Mutex::new(Vec::new());

extern "C" fn clean_up_at_exit() {
    let Ok(mut items) = AT_EXIT.lock() else {
        return;
    };
    for (dir, pid) in items.drain(..) {
        if let Some(pid) = pid {
            // SAFETY: kill with a pid this process started and never waited for.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// A static's directory, and its server if any, are removed and stopped when the test
/// process exits: a static is never dropped, so a server shared by a test's cases would
/// otherwise outlive the test run, and its directory stay behind.
pub fn clean_at_exit(dir: &TempDir, server: Option<&Server>) {
    static REGISTER: std::sync::Once = std::sync::Once::new();
    // SAFETY: atexit with a function that takes no arguments and does not unwind.
    REGISTER.call_once(|| unsafe {
        libc::atexit(clean_up_at_exit);
    });
    AT_EXIT
        .lock()
        .unwrap()
        .push((dir.0.clone(), server.map(Server::pid)));
}

/// Builds a material's tables (and their sub-tables) into a directory.
pub fn build_into(dir: &TempDir, name: &str) -> canju::tablebase::Tablebase {
    use canju::tablebase::build::build;
    use canju::tablebase::generate::Silent;
    let tb = canju::tablebase::Tablebase::new(&dir.0);
    let m: canju::game::material::Material = name.parse().unwrap();
    build(m.canonical(), &tb, &|_| Box::new(Silent), &mut |_| {}).unwrap();
    tb
}

/// Builds a material's tables and every table it falls into, silently.
pub fn build_tables(tb: &canju::tablebase::Tablebase, sig: &str) {
    let m: canju::game::material::Material = sig.parse().unwrap();
    canju::tablebase::build::build(
        m,
        tb,
        &|_| Box::new(canju::tablebase::generate::Silent),
        &mut |_| {},
    )
    .unwrap();
}

/// Runs the canju binary with the default table directory unset.
pub fn canju(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_canju"))
        .args(args)
        .env_remove("CANJU_TB_DIR")
        .output()
        .unwrap()
}

/// A `canju serve` started on a free port (its own progress file under `home`), stopped
/// when dropped.
pub struct Server {
    child: std::process::Child,
    /// `127.0.0.1:PORT`
    pub addr: String,
}

impl Server {
    pub fn start(tables: &std::path::Path, home: &std::path::Path) -> Server {
        Server::start_with(tables, home, &[], None)
    }

    /// A server with more arguments (`--idle-timeout 1`), and with at most `files` open
    /// descriptors when given.
    pub fn start_with(
        tables: &std::path::Path,
        home: &std::path::Path,
        args: &[&str],
        files: Option<u64>,
    ) -> Server {
        use std::io::BufRead;
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_canju"));
        command
            .args(["serve", "--port", "0", "--dir", tables.to_str().unwrap()])
            .args(args)
            .env("CANJU_HOME", home)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null());
        if let Some(n) = files {
            use std::os::unix::process::CommandExt;
            // SAFETY: setrlimit is async-signal-safe, as pre_exec requires.
            unsafe {
                command.pre_exec(move || {
                    let limit = libc::rlimit {
                        rlim_cur: n,
                        rlim_max: n,
                    };
                    if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let mut child = command.spawn().unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        // "canju serve: http://127.0.0.1:PORT/ (page) and …; Ctrl-C stops"
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|s| s.split('/').next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_string();
        assert!(addr.starts_with("127.0.0.1:"), "{addr}");
        Server { child, addr }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends a signal (SIGINT for Ctrl-C) and waits for the server to end, at most
    /// `limit`; its exit status, or `None` if it is still running then.
    pub fn signal_and_wait(
        &mut self,
        signal: i32,
        limit: std::time::Duration,
    ) -> Option<std::process::ExitStatus> {
        // SAFETY: kill with the child's own pid.
        unsafe { libc::kill(self.child.id() as i32, signal) };
        let start = std::time::Instant::now();
        while start.elapsed() < limit {
            if let Some(s) = self.child.try_wait().unwrap() {
                return Some(s);
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        None
    }

    /// CPU time the server has used so far, in clock ticks (user and system).
    pub fn cpu_ticks(&self) -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap();
        // the fields after the command name (which may hold spaces) in parentheses
        let rest = &stat[stat.rfind(')').unwrap() + 2..];
        let f: Vec<&str> = rest.split_whitespace().collect();
        f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Calls `f` on every legal position of a material (both sides to move), by placing the
/// pieces on every point they may stand on; like pieces in increasing square order.
pub fn for_each_position(material: &canju::game::material::Material, f: &mut dyn FnMut(Position)) {
    fn place(pieces: &[Piece], squares: &mut Vec<Square>, f: &mut dyn FnMut(Position)) {
        let k = squares.len();
        if k == pieces.len() {
            for turn in Color::ALL {
                let mut setup = Setup::empty(turn);
                for (p, s) in pieces.iter().zip(squares.iter()) {
                    setup.put(*s, *p);
                }
                if let Ok(pos) = setup.into_position() {
                    f(pos);
                }
            }
            return;
        }
        let p = pieces[k];
        for s in Square::all() {
            if !p.can_stand_on(s) || squares.contains(&s) {
                continue;
            }
            if k > 0 && pieces[k - 1] == p && squares[k - 1] >= s {
                continue;
            }
            squares.push(s);
            place(pieces, squares, f);
            squares.pop();
        }
    }
    place(&material.pieces(), &mut Vec::new(), f);
}

/// Rewrites the entries of a table file through `f` (side to move, index, code) with every
/// checksum made to match, so that only a check of the values themselves can tell.
pub fn rewrite_codes(path: &std::path::Path, material: &str, f: &dyn Fn(Color, u64, u8) -> u8) {
    let m: canju::game::material::Material = material.parse().unwrap();
    let t = canju::tablebase::Table::open(path, m).unwrap();
    let mut sides = [
        t.checked_side(Color::Red).unwrap().to_vec(),
        t.checked_side(Color::Black).unwrap().to_vec(),
    ];
    for turn in Color::ALL {
        for (i, c) in sides[turn.index()].iter_mut().enumerate() {
            *c = f(turn, i as u64, *c);
        }
    }
    let header = t.header().clone();
    let far = t.far_list().clone();
    drop(t);
    canju::tablebase::format::write_with_far(path, &header, &sides[0], &sides[1], &far).unwrap();
}

/// Sends one HTTP/1.1 request (`Connection: close`, a JSON body) and returns the open
/// connection, the answer not yet read.
pub fn http_send(addr: &str, method: &str, target: &str, body: &str) -> std::net::TcpStream {
    use std::io::Write;
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    s
}

/// Reads a whole answer: its status (0 when the server closed without one), head and body.
pub fn http_answer(mut s: std::net::TcpStream) -> (u16, String, String) {
    use std::io::Read;
    s.set_read_timeout(Some(std::time::Duration::from_secs(60)))
        .unwrap();
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    (status, head.to_string(), body.to_string())
}

/// One request and its whole answer: status, head and body.
pub fn http(addr: &str, method: &str, target: &str, body: &str) -> (u16, String, String) {
    http_answer(http_send(addr, method, target, body))
}

/// What a test does when an outside tool it drives (`what`, with `how` to get it) is
/// missing. Where the environment variable `skip` is set (`.ci/run` sets it when it could
/// not install the tool, to the reason or to 1), or on a machine with only Rust, the test
/// is skipped and says so. Under `CANJU_REQUIRE_TOOLS` (which `.ci/run` sets, having
/// installed the tools), a missing tool is a failure.
pub fn tool_missing(what: &str, skip: &str, how: &str) {
    use std::io::Write;
    // straight to the terminal: the test harness keeps a passing test's prints to itself
    let say = |line: String| {
        let _ = writeln!(std::io::stderr(), "{line}");
    };
    if let Ok(why) = std::env::var(skip) {
        return say(format!("SKIPPED: {what} ({skip}={why})"));
    }
    if std::env::var_os("CANJU_REQUIRE_TOOLS").is_some() {
        panic!(
            "{what}: {how}; CANJU_REQUIRE_TOOLS is set, so a missing tool fails the test \
             (set {skip}=1 to skip it)"
        );
    }
    say(format!(
        "SKIPPED: {what}: {how} (CANJU_REQUIRE_TOOLS=1 makes this a failure)"
    ));
}
