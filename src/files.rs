//! The files canju reads and writes, handled so that a hostile or unlucky path does no
//! harm: an interrupted write never leaves a file that looks complete; a path that is not
//! a regular file (a device, a named pipe, a directory, a symbolic link) is never replaced
//! and never read; two processes that update one file take turns under a lock.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// What kind of file a path names, in words ("a directory", "a named pipe", ...).
pub fn kind_of(meta: &fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_file() {
        return "a regular file";
    }
    if t.is_dir() {
        return "a directory";
    }
    if t.is_symlink() {
        return "a symbolic link";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a named pipe";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    "a special file"
}

/// An error for a path that exists but is not a regular file; its message says what it is.
fn not_a_file(meta: &fs::Metadata, doing: &str) -> io::Error {
    let kind = if meta.is_dir() {
        io::ErrorKind::IsADirectory
    } else {
        io::ErrorKind::InvalidInput
    };
    io::Error::new(
        kind,
        format!("is {}, not a regular file: canju {doing}", kind_of(meta)),
    )
}

/// Checks that `path` can be written by replacing it: either nothing is there, or a regular
/// file. A directory, a device, a named pipe, a socket or a symbolic link (to anything) is
/// refused, so that no command ever replaces one.
pub fn check_writable(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_file() => Ok(()),
        Ok(meta) => Err(not_a_file(
            &meta,
            "writes only regular files and leaves it as it is",
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Opens a file for reading only if it is a regular file (a symbolic link to one is
/// followed): a directory, a named pipe, a socket or a device is an error at once, and
/// opening never blocks (a named pipe with no writer).
pub fn open_regular(path: &Path) -> io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_a_file(&meta, "reads only regular files"));
    }
    Ok(file)
}

/// Reads a whole regular file (see [`open_regular`]).
pub fn read_regular(path: &Path) -> io::Result<Vec<u8>> {
    let mut file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Text as read from a file, less a UTF-8 byte-order mark at its start (as Windows editors
/// write them): a BOM is not part of the text, wherever a text file is read.
pub fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes)
}

/// Writes the parts to a new temporary file beside `path`, syncs it and renames it over
/// `path`; on failure the temporary file is removed. The directory must exist, and `path`
/// must be absent or a regular file ([`check_writable`]).
pub fn write_atomically(path: &Path, parts: &[&[u8]]) -> io::Result<()> {
    write_atomically_with(path, |f| {
        for part in parts {
            f.write_all(part)?;
        }
        Ok(())
    })
}

/// [`write_atomically`] with the contents written by `fill` into the open temporary file
/// (which it may seek in).
pub fn write_atomically_with(
    path: &Path,
    fill: impl FnOnce(&mut fs::File) -> io::Result<()>,
) -> io::Result<()> {
    check_writable(path)?;
    let tmp = temporary_name(path);
    let result = (|| {
        // a new file of our own: never through a link or into something already there
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        fill(&mut f)?;
        f.sync_all()?;
        // the target may have changed since it was checked: check again, just before
        check_writable(path)?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// `NAME.tmpPID-N` beside `NAME`: unique to this process and this write, so that two
/// threads writing the same file never share a temporary file.
pub fn temporary_name(path: &Path) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(
        ".tmp{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Relaxed)
    ));
    path.with_file_name(name)
}

/// An exclusive lock on a file, held until dropped: `NAME.lock` beside the file it guards
/// (the guarded file itself is replaced by renames, so it cannot carry the lock). Processes
/// and threads that take the same lock take turns.
#[derive(Debug)]
pub struct Lock {
    _file: fs::File,
}

impl Lock {
    /// The lock file that guards `path`: `NAME.lock` beside it (what an error taking the
    /// lock names).
    pub fn path_for(path: &Path) -> PathBuf {
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(".lock");
        path.with_file_name(name)
    }

    /// Takes the lock that guards `path`, waiting for another holder to let go. The lock
    /// file is made if missing (the directory must exist); a lock path that is not a
    /// regular file is refused.
    pub fn exclusive(path: &Path) -> io::Result<Lock> {
        let lock_path = Lock::path_for(path);
        check_writable(&lock_path)?;
        let mut options = fs::OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
        }
        let file = options.open(&lock_path)?;
        if !file.metadata()?.is_file() {
            return Err(not_a_file(&file.metadata()?, "locks only regular files"));
        }
        #[cfg(unix)]
        {
            use std::os::unix::io::AsRawFd;
            loop {
                // SAFETY: flock on a descriptor this function owns.
                let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
                if r == 0 {
                    break;
                }
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
        Ok(Lock { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("canju-files-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn special_paths_are_never_replaced() {
        let dir = scratch("special");
        let target = dir.join("real.txt");
        fs::write(&target, b"keep").unwrap();
        let link = dir.join("link.txt");
        #[cfg(unix)]
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = write_atomically(&link, &[b"new"]).unwrap_err();
        assert!(e.to_string().contains("a symbolic link"), "{e}");
        assert_eq!(fs::read(&target).unwrap(), b"keep");
        let e = write_atomically(&dir, &[b"new"]).unwrap_err();
        assert!(e.to_string().contains("a directory"), "{e}");
        write_atomically(&target, &[b"ne", b"w"]).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert_eq!(read_regular(&link).unwrap(), b"new");
        assert!(
            read_regular(&dir)
                .unwrap_err()
                .to_string()
                .contains("a directory")
        );
        // no temporary file left behind
        let names: Vec<_> = fs::read_dir(&dir).unwrap().collect();
        assert_eq!(names.len(), 2);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn temporary_names_differ_per_write() {
        let p = Path::new("/x/progress.json");
        assert_ne!(temporary_name(p), temporary_name(p));
    }

    #[test]
    fn locks_take_turns_across_threads() {
        let dir = scratch("lock");
        let counter = dir.join("counter");
        fs::write(&counter, b"0").unwrap();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..25 {
                        let _lock = Lock::exclusive(&counter).unwrap();
                        let n: u32 = String::from_utf8(read_regular(&counter).unwrap())
                            .unwrap()
                            .parse()
                            .unwrap();
                        write_atomically(&counter, &[(n + 1).to_string().as_bytes()]).unwrap();
                    }
                });
            }
        });
        assert_eq!(fs::read(&counter).unwrap(), b"100");
        let _ = fs::remove_dir_all(&dir);
    }
}
