//! What the machine offers a build: memory available now, free disk, this process's peak
//! memory (Linux: `/proc` and `statvfs`). Each is `None` where the system does not tell.

use std::path::{Path, PathBuf};

/// A `/proc` file's line `NAME: N kB`, in bytes.
fn proc_kb(file: &str, name: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Memory the system can give now (`MemAvailable`), in bytes.
pub fn memory_available() -> Option<u64> {
    proc_kb("/proc/meminfo", "MemAvailable:")
}

/// Peak resident memory of this process (`VmHWM`), in bytes.
pub fn peak_memory() -> Option<u64> {
    proc_kb("/proc/self/status", "VmHWM:")
}

/// Free bytes, for an unprivileged user, on the file system of `dir` (or of its nearest
/// existing ancestor: a directory not made yet will be made there).
pub fn disk_free(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let mut d = dir.to_path_buf();
    while !d.exists() {
        d = d.parent()?.to_path_buf();
        if d.as_os_str().is_empty() {
            d = PathBuf::from(".");
        }
    }
    let c = std::ffi::CString::new(d.as_os_str().as_bytes()).ok()?;
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a valid C string and a zeroed out-parameter of the right type.
    let rc = unsafe { libc::statvfs(c.as_ptr(), &mut st) };
    (rc == 0).then(|| st.f_bavail as u64 * st.f_frsize as u64)
}

/// A number of bytes in the unit that shows it best: `512 bytes`, `3.4 MB`, `1.2 GB`.
pub fn size(bytes: u64) -> String {
    let b = bytes as f64;
    if bytes < 1000 {
        format!("{bytes} bytes")
    } else if b < 1e6 {
        format!("{:.1} KB", b / 1e3)
    } else if b < 1e9 {
        format!("{:.1} MB", b / 1e6)
    } else {
        format!("{:.1} GB", b / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linux_tells_memory_and_disk() {
        assert!(memory_available().is_some_and(|m| m > 0));
        assert!(peak_memory().is_some_and(|m| m > 0));
        // a directory not made yet: its nearest existing ancestor answers
        assert!(disk_free(Path::new("/tmp/canju-no-such-dir/deeper")).is_some());
    }
}
