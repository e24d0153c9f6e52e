//! Files that are not files, and files with two writers, through the real binary: a path
//! canju would write that is a named pipe, a symbolic link, a directory or a device node is
//! refused with one line and left as it was; every file canju reads refuses a named pipe
//! or a device at once; two processes recording progress, or importing into one
//! collection, at the same time lose nothing and make no duplicate ids; an import judges
//! each game on its own.

use crate::common;

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Server, TempDir};

fn canju(home: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_canju"));
    c.env_remove("CANJU_TB_DIR").env("CANJU_HOME", home);
    c
}

/// Runs a command with no standard input, killing it after 20 s (a read that blocks on a
/// named pipe would hang); returns its output and how long it took.
fn run(home: &Path, args: &[&str]) -> (Output, Duration) {
    let t = Instant::now();
    let mut child = canju(home)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    (child.wait_with_output().unwrap(), t.elapsed())
}

/// A non-zero exit within a few seconds, with one line on standard error that names the
/// kind of file; returns the line.
fn refused(o: &(Output, Duration), kind: &str) -> String {
    let (o, took) = o;
    let e = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(*took < Duration::from_secs(10), "took {took:?}: {e}");
    assert!(!o.status.success(), "{e}");
    assert_eq!(e.trim().lines().count(), 1, "{e}");
    assert!(!e.contains("panicked") && !e.contains("os error"), "{e}");
    assert!(e.contains(kind), "wanted '{kind}': {e}");
    e
}

fn mkfifo(p: &Path) {
    let c = CString::new(p.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

/// A character device node like /dev/null's (1, 3), made under the test's own folder; `None`
/// where this user may not make one (not root).
fn mkdev(p: &Path) -> Option<()> {
    let c = CString::new(p.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid C string.
    let r = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
    (r == 0).then_some(())
}

/// The special paths a test writes to: (path, the kind canju must name).
fn special_paths(dir: &Path, stem: &str) -> Vec<(PathBuf, &'static str)> {
    let fifo = dir.join(format!("{stem}-fifo"));
    mkfifo(&fifo);
    let target = dir.join(format!("{stem}-target"));
    std::fs::write(&target, b"keep").unwrap();
    let link = dir.join(format!("{stem}-link"));
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let sub = dir.join(format!("{stem}-dir"));
    std::fs::create_dir(&sub).unwrap();
    let mut paths = vec![
        (fifo, "named pipe"),
        (link, "symbolic link"),
        (sub, "directory"),
    ];
    let dev = dir.join(format!("{stem}-dev"));
    if mkdev(&dev).is_some() {
        paths.push((dev, "device"));
    } else {
        eprintln!("not root: the device-node case is skipped");
    }
    paths
}

/// The path is still what it was: a pipe, a link to the untouched file, a directory, a device.
fn unchanged(p: &Path, kind: &str) {
    let m = std::fs::symlink_metadata(p).unwrap();
    let t = m.file_type();
    let same = match kind {
        "named pipe" => t.is_fifo(),
        "symbolic link" => {
            t.is_symlink() && std::fs::read(std::fs::read_link(p).unwrap()).unwrap() == b"keep"
        }
        "directory" => t.is_dir(),
        "device" => t.is_char_device(),
        _ => unreachable!(),
    };
    assert!(same, "{} is no longer {kind}", p.display());
}

#[test]
fn outputs_that_are_not_regular_files_are_refused_and_left_alone() {
    let d = TempDir::new("special-out");
    let home = d.0.join("home");
    for (path, kind) in special_paths(&d.0, "svg") {
        let o = run(&home, &["diagram", "-o", path.to_str().unwrap()]);
        refused(&o, kind);
        unchanged(&path, kind);
    }
    // the progress file
    for (path, kind) in special_paths(&d.0, "progress") {
        let h = d.0.join(format!("home-{}", kind.replace(' ', "-")));
        std::fs::create_dir_all(&h).unwrap();
        std::fs::rename(&path, h.join("progress.json")).unwrap();
        let o = run(&h, &["puzzle", "reset"]);
        refused(&o, kind);
        unchanged(&h.join("progress.json"), kind);
    }
    // a collection an import would write
    let games = d.0.join("games.pgn");
    std::fs::write(
        &games,
        "[FEN \"3k1a3/4a4/9/9/2N6/9/9/9/9/4K1C2 w - - 0 1\"]\n[Result \"1-0\"]\n\n1. 帅五进一 *\n",
    )
    .unwrap();
    for (path, kind) in special_paths(&d.0, "collection") {
        let puzzles = d.0.join(format!("puzzles-{}", kind.replace(' ', "-")));
        std::fs::create_dir_all(&puzzles).unwrap();
        let target = puzzles.join("mine.toml");
        std::fs::rename(&path, &target).unwrap();
        let o = run(
            &home,
            &[
                "puzzle",
                "import",
                games.to_str().unwrap(),
                "--collection",
                "mine",
                "--puzzles",
                puzzles.to_str().unwrap(),
            ],
        );
        refused(&o, kind);
        unchanged(&target, kind);
    }
}

#[test]
fn inputs_that_are_pipes_or_devices_are_refused_at_once() {
    let d = TempDir::new("special-in");
    // the progress file
    let home = d.0.join("home");
    std::fs::create_dir_all(&home).unwrap();
    mkfifo(&home.join("progress.json"));
    refused(&run(&home, &["puzzle", "list"]), "named pipe");
    // a collection in a puzzles folder
    let puzzles = d.0.join("puzzles");
    std::fs::create_dir_all(&puzzles).unwrap();
    mkfifo(&puzzles.join("mine.toml"));
    let other = d.0.join("home2");
    refused(
        &run(
            &other,
            &["puzzle", "list", "--puzzles", puzzles.to_str().unwrap()],
        ),
        "named pipe",
    );
    // the file an import reads, and a list of materials
    let pipe = d.0.join("games.pgn");
    mkfifo(&pipe);
    refused(
        &run(
            &other,
            &[
                "puzzle",
                "import",
                pipe.to_str().unwrap(),
                "--collection",
                "x",
            ],
        ),
        "named pipe",
    );
    let at = format!("@{}", pipe.display());
    refused(&run(&other, &["gen", &at, "--list"]), "named pipe");
    if mkdev(&d.0.join("dev.pgn")).is_some() {
        let dev = d.0.join("dev.pgn");
        refused(
            &run(
                &other,
                &[
                    "puzzle",
                    "import",
                    dev.to_str().unwrap(),
                    "--collection",
                    "x",
                ],
            ),
            "device",
        );
    }
    // a build's checkpoint that is a named pipe: the build goes on without checkpoints
    // and leaves the pipe as it is
    let tables = d.0.join("tables");
    std::fs::create_dir_all(&tables).unwrap();
    let work = tables.join(format!(
        "{}.work",
        canju::tablebase::format::file_name(
            &"KNK".parse().unwrap(),
            canju::tablebase::Rules::Asian
        )
    ));
    mkfifo(&work);
    let (o, took) = run(
        &other,
        &[
            "gen",
            "KNK",
            "--dir",
            tables.to_str().unwrap(),
            "--checkpoint-minutes",
            "0",
        ],
    );
    assert!(o.status.success(), "{o:?}");
    assert!(took < Duration::from_secs(10));
    assert!(
        std::fs::symlink_metadata(&work)
            .unwrap()
            .file_type()
            .is_fifo()
    );
}

#[test]
fn two_writers_of_progress_lose_nothing() {
    let d = TempDir::new("progress-writers");
    let home = d.0.join("home");
    // two servers (two terminals, or the page and a terminal) sharing one progress file
    let servers = [Server::start(&d.0, &home), Server::start(&d.0, &home)];
    let per_server = 25;
    std::thread::scope(|s| {
        for (k, server) in servers.iter().enumerate() {
            for t in 0..2 {
                let addr = server.addr.clone();
                s.spawn(move || {
                    for i in 0..per_server {
                        let solved = (i + t + k) % 2 == 0;
                        let body = format!(r#"{{"solved": {solved}}}"#);
                        let id = if t == 0 { "pattern-001" } else { "pattern-002" };
                        let (status, _, text) = common::http(
                            &addr,
                            "POST",
                            &format!("/api/puzzles/{id}/result"),
                            &body,
                        );
                        assert_eq!(status, 200, "{text}");
                    }
                });
            }
        }
    });
    let text = std::fs::read_to_string(home.join("progress.json")).unwrap();
    let j: serde_json::Value = serde_json::from_str(&text).unwrap();
    // (every record counts: a game, or practice when the puzzle was not due again)
    let attempts = |id: &str| {
        j["puzzles"][id]["attempts"].as_u64().unwrap()
            + j["puzzles"][id]["practice"].as_u64().unwrap_or(0)
    };
    assert_eq!(
        attempts("pattern-001") + attempts("pattern-002"),
        4 * per_server as u64,
        "{text}"
    );
    assert_eq!(attempts("pattern-001"), 2 * per_server as u64);
}

/// A PGN of the built-in mates `from..to` (collection "mates"), each with its line.
fn mates_pgn(from: usize, to: usize) -> String {
    let all = canju::puzzle::load_builtin().unwrap();
    let mates: Vec<_> = all
        .iter()
        .filter(|p| p.collection == "mates" && p.goal.win && !p.line.is_empty())
        .collect();
    assert!(mates.len() >= to, "{} mates", mates.len());
    let mut text = String::new();
    for p in &mates[from..to] {
        let moves: Vec<String> = p.line.iter().map(|m| m.to_string()).collect();
        let result = match p.position.turn() {
            canju::Color::Red => "1-0",
            canju::Color::Black => "0-1",
        };
        text.push_str(&format!(
            "[Event \"{}\"]\n[FEN \"{}\"]\n[Result \"{result}\"]\n\n{} {result}\n\n",
            p.entry.id,
            p.entry.fen,
            moves.join(" ")
        ));
    }
    text
}

#[test]
fn two_imports_into_one_collection_make_no_duplicate_ids() {
    let d = TempDir::new("import-two");
    let home = d.0.join("home");
    let puzzles = d.0.join("puzzles");
    let files: Vec<PathBuf> = [(0, 8), (8, 16)]
        .iter()
        .enumerate()
        .map(|(k, &(a, b))| {
            let f = d.0.join(format!("part{k}.pgn"));
            std::fs::write(&f, mates_pgn(a, b)).unwrap();
            f
        })
        .collect();
    let children: Vec<_> = files
        .iter()
        .map(|f| {
            canju(&home)
                .args([
                    "puzzle",
                    "import",
                    f.to_str().unwrap(),
                    "--collection",
                    "both",
                ])
                .args(["--puzzles", puzzles.to_str().unwrap()])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut added = 0;
    for c in children {
        let o = c.wait_with_output().unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{out}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        added += out
            .split_whitespace()
            .next()
            .unwrap()
            .parse::<usize>()
            .unwrap();
    }
    assert_eq!(added, 16);
    // the collection loads (which checks that no id is used twice) and holds both imports
    let all = canju::puzzle::load_file(&puzzles.join("both.toml")).unwrap();
    assert_eq!(all.len(), 16);
    let mut ids: Vec<&str> = all.iter().map(|p| p.entry.id.as_str()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 16);
}

#[test]
fn an_import_judges_each_game_on_its_own() {
    let d = TempDir::new("import-games");
    let home = d.0.join("home");
    let puzzles = d.0.join("puzzles");
    let file = d.0.join("mixed.pgn");
    // a byte-order mark, a good game, a bad FEN, an illegal move, another good game
    let text = format!(
        "\u{feff}{}[FEN \"nonsense\"]\n\n1. h2e2 *\n\n[FEN \"3k1a3/4a4/9/9/2N6/9/9/9/9/4K1C2 w - - 0 1\"]\n\n1. 车一进九 *\n\n{}",
        mates_pgn(0, 1),
        mates_pgn(1, 2)
    );
    std::fs::write(&file, text).unwrap();
    let (o, _) = run(
        &home,
        &[
            "puzzle",
            "import",
            file.to_str().unwrap(),
            "--collection",
            "mixed",
            "--puzzles",
            puzzles.to_str().unwrap(),
        ],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("game 2: not added: FEN"), "{out}");
    assert!(out.contains("game 3: not added: move 1"), "{out}");
    assert!(!out.contains("game 4:"), "{out}");
    let added: usize = out.split_whitespace().next().unwrap().parse().unwrap();
    assert_eq!(added, 2, "{out}");
    assert!(
        !out.contains("game 1:"),
        "the first game, after the BOM, is added: {out}"
    );
    let all = canju::puzzle::load_dir(&puzzles).unwrap();
    assert_eq!(all.len(), added);

    // a DhtmlXQ board with two pieces on one point is refused, not changed
    let x = d.0.join("two.txt");
    let mut binit = "9999".repeat(16);
    // red general on e0 (x=4, y=9) twice: as the general and as an advisor
    binit.replace_range(8..10, "49");
    binit.replace_range(6..8, "49");
    // black general on e9 (x=4, y=0)
    binit.replace_range(40..42, "40");
    std::fs::write(
        &x,
        format!("[DhtmlXQ][DhtmlXQ_binit]{binit}[/DhtmlXQ_binit][DhtmlXQ_movelist][/DhtmlXQ_movelist][/DhtmlXQ]"),
    )
    .unwrap();
    let (o, _) = run(
        &home,
        &[
            "puzzle",
            "import",
            x.to_str().unwrap(),
            "--collection",
            "two",
            "--puzzles",
            puzzles.to_str().unwrap(),
        ],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!o.status.success());
    assert!(
        out.contains("game 1: not added") && out.contains("two pieces on e0"),
        "{out}"
    );
    assert!(!puzzles.join("two.toml").exists());
}

/// What other programs and killed runs leave: temporaries of a killed build (a table's, its
/// checkpoint's) are removed at the next build, a byte-order mark opens a material list as
/// it opens a collection, and a PGN of compositions written as tags alone is one
/// composition per game.
#[test]
fn killed_builds_boms_and_pgn_of_tags_alone() {
    let d = TempDir::new("leftovers");
    let home = d.0.join("home");
    let tables = d.0.join("tables");
    std::fs::create_dir_all(&tables).unwrap();
    // a pid no process can have (above the kernel's maximum)
    let dead = 4_194_305;
    let left = [
        format!("KRKN.asian.ctb.tmp{dead}-0"),
        format!("KRKN.asian.ctb.work.tmp{dead}-2"),
        format!("KRK.asian.ctb.tmp{dead}-1"),
    ];
    for name in &left {
        std::fs::write(tables.join(name), vec![0u8; 4096]).unwrap();
    }
    let list = d.0.join("list.txt");
    std::fs::write(&list, "\u{feff}KRKN  # 车对马\n").unwrap();
    let (o, _) = run(
        &home,
        &[
            "gen",
            &format!("@{}", list.display()),
            "--dir",
            tables.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for name in &left {
        assert!(!tables.join(name).exists(), "{name} left behind");
    }
    assert!(tables.join("KRKN.asian.ctb").exists());

    let pgn = d.0.join("tags.pgn");
    std::fs::write(
        &pgn,
        "[Event \"一\"]\n[FEN \"3k1a3/4a4/9/9/2N6/9/9/9/9/4K1C2 w - - 0 1\"]\n[Result \"1-0\"]\n\n\
         [Event \"二\"]\n[FEN \"9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1\"]\n[Result \"1-0\"]\n",
    )
    .unwrap();
    let puzzles = d.0.join("puzzles");
    let (o, _) = run(
        &home,
        &[
            "puzzle",
            "import",
            pgn.to_str().unwrap(),
            "--collection",
            "tags",
            "--puzzles",
            puzzles.to_str().unwrap(),
        ],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // two games, each judged on its own (the first imported, never merged into the second)
    let all = canju::puzzle::load_dir(&puzzles).unwrap();
    let refused = out.matches(": not added").count();
    assert_eq!(all.len() + refused, 2, "{out}");
    assert!(!out.contains("game 3"), "{out}");
    assert_eq!(
        all[0].position,
        "3k1a3/4a4/9/9/2N6/9/9/9/9/4K1C2 w".parse().unwrap(),
        "{out}"
    );
}
