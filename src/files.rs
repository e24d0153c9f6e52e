//! Writing files so that an interrupted write never leaves one that looks complete.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Writes the parts to a temporary file beside `path` (named after it and this process),
/// syncs it and renames it over `path`; on failure the temporary file is removed. The
/// directory must exist.
pub fn write_atomically(path: &Path, parts: &[&[u8]]) -> io::Result<()> {
    let tmp = temporary_name(path);
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        for part in parts {
            f.write_all(part)?;
        }
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// [`write_atomically`] with the contents written by `fill` into the open temporary file
/// (which it may seek in).
pub fn write_atomically_with(
    path: &Path,
    fill: impl FnOnce(&mut fs::File) -> io::Result<()>,
) -> io::Result<()> {
    let tmp = temporary_name(path);
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        fill(&mut f)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// `NAME.tmpPID` beside `NAME`.
pub fn temporary_name(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp{}", std::process::id()));
    path.with_file_name(name)
}
