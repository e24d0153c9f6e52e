//! Fingerprints the library's source, so that files canju resumes or trusts across runs
//! (a build's checkpoint, a table's move-limit flags) are only taken from the same code.
//! The fingerprint is FNV-1a (64 bits) over the path and bytes of every file under `src/`
//! except the binary's front ends ([`FRONT_ENDS`]: the command line, the server and what
//! they share), in path order.

use std::fs;
use std::path::{Path, PathBuf};

/// The binary's files and directories under `src/`: not the library's source.
const FRONT_ENDS: [&str; 5] = [
    "src/main.rs",
    "src/cli",
    "src/server",
    "src/output.rs",
    "src/remedy.rs",
];

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if FRONT_ENDS.iter().any(|f| p == Path::new(f)) {
            continue;
        }
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn main() {
    println!("cargo:rerun-if-changed=src");
    let mut all = Vec::new();
    files(Path::new("src"), &mut all);
    all.sort();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for p in &all {
        eat(p.to_string_lossy().as_bytes());
        eat(&[0]);
        eat(&fs::read(p).unwrap_or_default());
        eat(&[0]);
    }
    println!("cargo:rustc-env=CANJU_SOURCE_FINGERPRINT={h:016x}");
}
