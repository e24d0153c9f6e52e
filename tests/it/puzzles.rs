//! The puzzle collections and `canju puzzle`: every shipped puzzle holds under perfect
//! play, and answers are judged by it.

use std::process::{Command, Output};

use crate::common::TempDir;
use canju::puzzle::{self, Feedback, Judge};
use canju::tablebase::Rules;

fn home() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("canju-home-{}", std::process::id()))
}

fn canju(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_canju"))
        .args(args)
        .env_remove("CANJU_TB_DIR")
        .env("CANJU_HOME", home())
        .env("CANJU_LANG", "en")
        .output()
        .unwrap()
}

/// Runs canju with a script on standard input, in its own data directory.
fn canju_with_input(args: &[&str], input: &str, home: &std::path::Path) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_canju"))
        .args(args)
        .env_remove("CANJU_TB_DIR")
        .env("CANJU_HOME", home)
        .env("CANJU_LANG", "en")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// A puzzle where black moves first (黑先) is shown from black's side, rank 0 at the top and
/// the files from i to a, and once a move is played the board marks the point it left.
#[test]
fn a_black_to_move_puzzle_is_seen_from_black_and_marks_the_last_move() {
    let home_guard = TempDir::new("turned");
    let o = canju_with_input(
        &["puzzle", "play", "endgame-002", "--lang", "en"],
        "c1d3\nboard\nquit\n",
        &home_guard.0,
    );
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let boards: Vec<&str> = text.split("black to move\n").collect();
    assert!(boards.len() >= 3, "{text}");
    // the first board: black's horse on c1 seen from black's side (column 7 of 9), red's
    // general at the top, no mark yet
    // (red's file numbers on its edge, black's on its own, each from its right, for WXF)
    assert!(
        boards[0].starts_with("  1 2 3 4 5 6 7 8 9\n0 . . . . . K . . .\n"),
        "{text}"
    );
    assert!(
        boards[0].ends_with("  i h g f e d c b a\n  9 8 7 6 5 4 3 2 1\n"),
        "{text}"
    );
    assert!(boards[0].contains("1 . . . . . . n . .\n"), "{text}");
    assert!(boards[0].contains("  i h g f e d c b a\n"), "{text}");
    assert!(!boards[0].contains('*'), "{text}");
    // after 马３退４ and red's 仕四退五, the advisor's point of departure is marked
    let after = boards[1].rsplit("red defends").next().unwrap();
    assert!(after.contains("2 . . . * . . . . .\n"), "{text}");
    assert!(after.contains("1 . . . . A . . . .\n"), "{text}");
}

#[test]
fn play_through_standard_input_with_hint_undo_and_progress() {
    let home_guard = TempDir::new("play");
    let home = home_guard.0.clone();
    // a mistake, then quit: recorded as failed
    let o = canju_with_input(
        &["puzzle", "play", "pattern-002"],
        "马七进五\n马七进九\nhint\nsolution\nundo\nquit\n",
        &home,
    );
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        text.contains(
            "H7+5: mistake: still wins, but not within the moves left: mate in 4 moves now; refutation A5+6"
        ),
        "{text}"
    );
    // until it is taken back, moves are refused (the board shows the defender to move) and
    // the solution is the one from before the mistake
    assert!(
        text.contains("马七进九: H7+5 lost the goal; take it back first (undo)"),
        "{text}"
    );
    assert!(
        text.contains("hint: take the mistake back first (undo)"),
        "{text}"
    );
    assert!(
        text.contains("solution: K5+1 A5+6 C3.6 A6-5 H7+6"),
        "{text}"
    );
    let progress: serde_json::Value =
        serde_json::from_slice(&std::fs::read(home.join("progress.json")).unwrap()).unwrap();
    let r = &progress["puzzles"]["pattern-002"];
    assert_eq!(r["last"], "failed", "{progress}");
    let due = r["review"]["due"].as_u64().unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    assert!(
        (now + 590..=now + 610).contains(&due),
        "back in ten minutes: {r}"
    );
    assert!(progress["player"]["rating"].as_f64().unwrap() < 1500.0);
    // not due yet: the next puzzle is a new one
    let o = canju_with_input(&["puzzle", "play"], "quit\n", &home);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(text.contains("new puzzle: rated"), "{text}");
    assert!(!text.contains("pattern-002"), "{text}");
    // ten minutes later (the file says so), the failed puzzle comes back first; hints,
    // undo, the solution, then a solve: solved with help, not clean
    let mut edited = progress.clone();
    edited["puzzles"]["pattern-002"]["review"]["due"] = serde_json::json!(now - 1);
    std::fs::write(home.join("progress.json"), edited.to_string()).unwrap();
    let script = "hint\nhint\n帅五进一\nundo\nsolution\n帅五进一\nC3.6\nh2... \n马七进六\n";
    let o = canju_with_input(&["puzzle", "play"], script, &home);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(text.contains("review (failed or helped before)"), "{text}");
    assert!(
        text.contains("pattern-002 · Horse behind the cannon"),
        "{text}"
    );
    assert!(
        text.contains("hint: move the general on e0 (file 5)"),
        "{text}"
    );
    assert!(text.contains("hint: K5+1"), "{text}");
    assert!(text.contains("K5+1: best"), "{text}");
    assert!(
        text.contains("solution: K5+1 A5+6 C3.6 A6-5 H7+6"),
        "{text}"
    );
    assert!(text.contains("black defends: A5+6"), "{text}");
    assert!(
        text.contains("solved: checkmate: black is in check with no move"),
        "{text}"
    );
    // recorded the moment the first hint was shown (the review was due: a game), not again
    // at the end
    assert!(
        text.contains("recorded: with help (a hint or the solution); your rating"),
        "{text}"
    );
    assert!(
        text.contains("(this attempt was recorded when help was shown)"),
        "{text}"
    );
    let progress: serde_json::Value =
        serde_json::from_slice(&std::fs::read(home.join("progress.json")).unwrap()).unwrap();
    let r = &progress["puzzles"]["pattern-002"];
    assert_eq!(r["solved"], true);
    assert_eq!(
        (
            r["failed"].as_u64(),
            r["helped"].as_u64(),
            r["clean"].as_u64()
        ),
        (Some(1), Some(1), Some(0))
    );
    assert_eq!(r["attempts"], 2);
    assert_eq!(r["last"], "helped");
    assert_eq!(progress["streak"], 0, "a solve with help is no clean solve");
    // list shows it; a damaged file is reported and kept aside; reset clears
    let o = canju_with_input(&["puzzle", "list", "--tag", "马后炮"], "", &home);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        text.lines()
            .any(|l| l.starts_with("pattern-002 ") && l.contains(" helped ")),
        "{text}"
    );
    assert!(
        text.contains("1 puzzle: 0 solved clean, 1 with help, 0 failed"),
        "{text}"
    );
    let o = canju_with_input(
        &["puzzle", "list", "--progress", "helped", "--json"],
        "",
        &home,
    );
    let list: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list[0]["progress"], "helped");
    assert!(list[0]["rating"].is_i64(), "{list}");
    std::fs::write(home.join("progress.json"), b"{ broken").unwrap();
    let o = canju_with_input(&["puzzle", "list", "--tag", "马后炮"], "", &home);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("was damaged; it is kept as"));
    assert!(home.join("progress.json.damaged-1").exists());
    let o = canju_with_input(&["puzzle", "reset"], "", &home);
    assert!(o.status.success());
}

#[test]
fn train_picks_a_reproducible_table_position() {
    let home_guard = TempDir::new("train");
    let home = home_guard.0.clone();
    let tables_guard = TempDir::new("train-tb");
    let tables = tables_guard.0.clone();
    let args = [
        "train",
        "单车对光将",
        "--seed",
        "7",
        "--moves",
        "2-2",
        "--dir",
        tables.to_str().unwrap(),
    ];
    let o = canju_with_input(&args, "solution\nquit\n", &home);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let first = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(first.contains("seed 7"), "{first}");
    assert!(first.contains("goal: red to move and win"), "{first}");
    // the solution is a win in two moves: three plies
    let sol = first.lines().find(|l| l.starts_with("solution: ")).unwrap();
    assert_eq!(sol.split_whitespace().count(), 4, "{sol}");
    let again = canju_with_input(&args, "solution\nquit\n", &home);
    let second = String::from_utf8_lossy(&again.stdout).into_owned();
    let board = |t: &str| {
        t.lines()
            .skip_while(|l| !l.starts_with("seed"))
            .take(14)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(board(&first), board(&second));
    let o = canju_with_input(&["train", "KRK", "--goal", "maybe"], "", &home);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn every_shipped_puzzle_holds_under_perfect_play() {
    let all = puzzle::load_builtin().unwrap();
    // the repository's directory reads the same
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("puzzles");
    assert_eq!(puzzle::load_dir(&dir).unwrap().len(), all.len());
    // the tables the endgame puzzles need
    let d_guard = TempDir::new("puzzle-tables");
    let d = d_guard.0.clone();
    // under both rule sets: a puzzle must hold under the rules players play under
    // (asian, the default) and without them
    for r in [Rules::None, Rules::Asian] {
        let tb = canju::tablebase::Tablebase::with_rules(&d, r);
        for sig in ["KNPKAABB", "KCAKAA", "KRKNAA", "KRKAABB"] {
            let m: canju::game::material::Material = sig.parse().unwrap();
            canju::tablebase::build::build(
                m,
                &tb,
                &|_| Box::new(canju::tablebase::generate::Silent),
                &mut |_| {},
            )
            .unwrap();
        }
    }
    // (verified by the test below, by the solver alone)
    let judged: Vec<&puzzle::Puzzle> = all
        .iter()
        .filter(|p| !WHOLE_COLLECTIONS.contains(&p.collection.as_str()))
        .collect();
    // the shortest win of each, both halves at once (each thread its own tables' handles)
    let verify_half = |half: &[&puzzle::Puzzle]| -> Vec<Option<u32>> {
        let [tb, asian] =
            [Rules::None, Rules::Asian].map(|r| canju::tablebase::Tablebase::with_rules(&d, r));
        let (judge, asian_judge) = (Judge::new(Some(&tb)), Judge::new(Some(&asian)));
        half.iter()
            .map(|p| {
                let shortest = judge
                    .verify(p)
                    .unwrap_or_else(|e| panic!("{}: {e}", p.entry.id));
                // (a 连将杀 reads no table, so the rule set cannot change it)
                if !p.entry.checks {
                    let under_rule = asian_judge
                        .verify(p)
                        .unwrap_or_else(|e| panic!("{} (rules asian): {e}", p.entry.id));
                    assert_eq!(shortest, under_rule, "{}", p.entry.id);
                }
                shortest
            })
            .collect()
    };
    let (first, second) = judged.split_at(judged.len() / 2);
    let shortest_of: Vec<Option<u32>> = std::thread::scope(|s| {
        let other = s.spawn(|| verify_half(second));
        let mut all = verify_half(first);
        all.extend(other.join().expect("the second half's thread"));
        all
    });
    let (mut mates, mut endgames, mut draws, mut compositions, mut by_checks) = (0, 0, 0, 0, 0);
    let mut fens = std::collections::HashSet::new();
    for p in &all {
        assert!(
            fens.insert(p.position.to_string()),
            "{}: a repeated position",
            p.entry.id
        );
    }
    for (p, &shortest) in judged.iter().zip(&shortest_of) {
        let pieces = p.position.piece_count();
        if p.collection == "mates" {
            assert!(pieces >= 8, "{}", p.entry.id);
            assert!(shortest.is_some_and(|n| n <= 13), "{}", p.entry.id);
            mates += 1;
        }
        if p.collection == "checks" {
            // 连将杀 of 适情雅趣, beyond six moves: every move of the line's player checks
            assert!(p.entry.checks, "{}", p.entry.id);
            assert!(shortest.is_some_and(|n| n >= 13), "{}", p.entry.id);
            let mut pos = p.position.clone();
            for (i, &m) in p.line.iter().enumerate() {
                pos.play_unchecked(m);
                assert!(i % 2 == 1 || pos.in_check(pos.turn()), "{}", p.entry.id);
            }
            by_checks += 1;
        }
        if p.collection == "compositions" {
            // 适情雅趣's compositions that mate within six moves, beyond the tables' reach
            assert!(shortest.is_some_and(|n| n <= 11), "{}", p.entry.id);
            assert!(!p.in_table_reach(), "{}", p.entry.id);
            compositions += 1;
        }
        if p.collection == "endgames" {
            assert!(p.in_table_reach(), "{}", p.entry.id);
            endgames += 1;
            draws += usize::from(!p.goal.win);
        }
    }
    assert!(
        mates >= 50 && compositions >= 50 && by_checks >= 80,
        "{mates} {compositions} {by_checks}"
    );
    assert!(endgames >= 40 && draws >= 4, "{endgames} {draws}");
}

/// The collections written by `canju puzzle import` from whole books' transcriptions.
const WHOLE_COLLECTIONS: [&str; 2] = ["shiqingyaqu", "lanke"];

/// The compositions of 适情雅趣 after 第190局 and of 烂柯神机 hold as written: each a win
/// within its stipulation, which is the shortest (by checks alone for a 连将杀), every move of
/// the line's player keeps it, and the line ends in mate at that length. Their material is
/// beyond the tables, so the solver alone judges (a mate wins under every rule set); two at a
/// time.
#[test]
fn every_composition_of_the_whole_collections_holds() {
    use rayon::prelude::*;
    let all = puzzle::load_builtin().unwrap();
    let whole: Vec<&canju::puzzle::Puzzle> = all
        .iter()
        .filter(|p| WHOLE_COLLECTIONS.contains(&p.collection.as_str()) && !p.entry.long)
        .collect();
    let judge = Judge::new(None);
    let results: Vec<(String, Option<u32>, bool)> = whole
        .par_iter()
        .map(|p| {
            let shortest = judge
                .verify(p)
                .unwrap_or_else(|e| panic!("{}: {e}", p.entry.id));
            (p.entry.id.clone(), shortest, p.entry.checks)
        })
        .collect();
    let (sq, lanke) = (
        results
            .iter()
            .filter(|r| r.0.starts_with("shiqingyaqu-"))
            .count(),
        results.iter().filter(|r| r.0.starts_with("lanke-")).count(),
    );
    assert!(sq >= 100 && lanke >= 150, "{sq} {lanke}");
    for (id, shortest, checks) in &results {
        let plies = shortest.unwrap_or_else(|| panic!("{id}: no win"));
        // within the import's bounds: 8 moves, 30 by checks alone
        assert!(plies <= if *checks { 59 } else { 15 }, "{id}: {plies}");
    }
    assert!(results.iter().filter(|r| r.2).count() >= 50);
}

/// The long compositions (`long = true`, proven by proof-number search): at least 40, each
/// beyond the depth-first bound of 8 moves; and those of them that verify in seconds hold,
/// each line proven whole again by proof-number search under the perpetual-check rule (the
/// rule their lines were proven under), without tables: the shortest win from the start is
/// the stipulation and the line's length, each of red's moves keeps a win one ply shorter,
/// each of black's replies resists longest, and the line ends in mate. Every one of them is
/// verified by `canju puzzle verify --long` (about four minutes on two cores: BENCHMARKS.md).
#[test]
fn the_long_compositions_hold() {
    use rayon::prelude::*;
    let all = puzzle::load_builtin().unwrap();
    let long: Vec<&canju::puzzle::Puzzle> = all.iter().filter(|p| p.entry.long).collect();
    assert!(long.len() >= 40, "{}", long.len());
    for p in &long {
        let moves = p.entry.moves.unwrap_or(0);
        assert!((9..=40).contains(&moves), "{}: {moves}", p.entry.id);
        assert!(WHOLE_COLLECTIONS.contains(&p.collection.as_str()));
    }
    // (the quick ones: a few seconds each)
    let quick = [
        "适情雅趣 第034局",
        "适情雅趣 第165局",
        "适情雅趣 第172局",
        "适情雅趣 第183局",
        "适情雅趣 *第195局",
        "适情雅趣 第236局",
        "适情雅趣 第249局",
        "适情雅趣 第446局",
        "烂柯神机 第028局",
        "烂柯神机 第204局",
        "烂柯神机 第220局",
        "烂柯神机 第232局",
        "烂柯神机 第248局",
    ];
    let sample: Vec<&&canju::puzzle::Puzzle> = long
        .iter()
        .filter(|p| quick.iter().any(|q| p.entry.title.starts_with(q)))
        .collect();
    assert_eq!(sample.len(), quick.len());
    let judge = Judge::new(None).with_rules(Rules::Asian);
    sample.par_iter().for_each(|p| {
        let plies = judge
            .verify(p)
            .unwrap_or_else(|e| panic!("{}: {e}", p.entry.id))
            .unwrap_or_else(|| panic!("{}: no win", p.entry.id));
        assert_eq!(Some(plies.div_ceil(2)), p.entry.moves, "{}", p.entry.id);
    });
}

/// A long composition's judge follows its proven line without searching, and searches a
/// move off it: 适情雅趣 第034局 忙里偷闲, 九步杀 with quiet moves.
#[test]
fn a_long_composition_is_judged_along_its_line_and_off_it() {
    use canju::puzzle::attempt::{Attempt, Status};
    let all = puzzle::load_builtin().unwrap();
    let p = all
        .iter()
        .find(|p| p.entry.long && p.entry.title.contains("第034局"))
        .expect("第034局 among the long compositions");
    // (the trainer's rules)
    let judge = Judge::for_puzzle(None, p).with_rules(Rules::Asian);
    let mut a = Attempt::new(p, &judge);
    // the line's own moves: best at each, and black answers with the line's replies
    for (i, pair) in p.line.chunks(2).enumerate() {
        let r = a.play(pair[0]).unwrap();
        assert_eq!(r.feedback, Feedback::Best, "move {}", i + 1);
        if let Some(d) = r.defence {
            assert_eq!(d.chinese, p.entry.line[2 * i + 1], "reply {}", i + 1);
        }
    }
    assert_eq!(a.status(), &Status::Solved { clean: true });
    // off the line, after 车四平五 将５进１ 兵四进一 将５平６: 车三退二 lets black out, and
    // the judge finds the refutation by search
    let mut a = Attempt::new(p, &judge);
    a.play(p.line[0]).unwrap();
    a.play(p.line[2]).unwrap();
    let r = a.play_text("车三退二").unwrap();
    assert_eq!(r.feedback, Feedback::Mistake);
    assert!(r.refutation.is_some());
    // a judge whose searches are all stopped: a move off the line cannot be judged, and the
    // attempt is as it was; the line's own move needs no search
    let stopped = Judge::for_puzzle(None, p).with_limits(
        std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true)),
        None,
    );
    let mut a = Attempt::new(p, &stopped);
    assert!(matches!(
        a.play_text("车三退二"),
        Err(canju::puzzle::attempt::AttemptError::Puzzle(
            canju::puzzle::PuzzleError::Stopped
        ))
    ));
    assert_eq!(a.position(), &p.position);
    assert_eq!(a.status(), &Status::Playing);
    let r = a.play(p.line[0]).unwrap();
    assert_eq!(r.feedback, Feedback::Best);
    assert_eq!(r.defence.unwrap().chinese, p.entry.line[1]);
    // a hint on the line names the line's move
    let mut a = Attempt::new(p, &judge);
    a.hint().unwrap();
    match a.hint().unwrap() {
        canju::puzzle::attempt::Hint::Move(m) => assert_eq!(m.chinese, p.entry.line[0]),
        h => panic!("{h:?}"),
    }
}

/// `canju puzzle verify`: a line per puzzle and a summary; exit 1 when one does not hold,
/// a one-line error for an unknown id.
#[test]
fn puzzle_verify_proves_puzzles_and_names_the_unsound() {
    let t = TempDir::new("verify");
    let text = |o: &Output| String::from_utf8_lossy(&o.stdout).into_owned();
    let o = canju(&[
        "puzzle",
        "verify",
        "pattern-002",
        "--dir",
        t.0.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("pattern-002  holds: 红先胜, 三步杀 (5 plies)"),
        "{}",
        text(&o)
    );
    assert!(
        text(&o).contains("1 puzzles: 1 hold, 0 unsound"),
        "{}",
        text(&o)
    );
    // a stipulation one move too long does not hold
    let all = puzzle::load_builtin().unwrap();
    let p = all.iter().find(|p| p.entry.id == "pattern-002").unwrap();
    let mut e = p.entry.clone();
    e.moves = Some(4);
    let dir = t.0.join("mine");
    std::fs::create_dir_all(&dir).unwrap();
    #[derive(serde::Serialize)]
    struct File {
        puzzle: Vec<canju::puzzle::Entry>,
    }
    std::fs::write(
        dir.join("mine.toml"),
        toml::to_string(&File { puzzle: vec![e] }).unwrap(),
    )
    .unwrap();
    let o = canju(&[
        "puzzle",
        "verify",
        "--puzzles",
        dir.to_str().unwrap(),
        "--dir",
        t.0.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains(
            "pattern-002  UNSOUND: the stipulation says 4 moves, the shortest win takes 3"
        ),
        "{}",
        text(&o)
    );
    let o = canju(&["puzzle", "verify", "no-such-puzzle"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("no-such-puzzle"), "{err}");
}

#[test]
fn a_slower_win_is_good_and_a_losing_move_is_a_mistake() {
    let all = puzzle::load_builtin().unwrap();
    let p = all.iter().find(|p| p.entry.id == "pattern-002").unwrap();
    let judge = Judge::new(None);
    let m = |t: &str| canju::notation::parse_move(&p.position, t).unwrap();
    assert_eq!(
        judge.judge(&p.position, m("帅五进一"), p.goal, 13).unwrap(),
        Feedback::Best
    );
    assert_eq!(
        judge.judge(&p.position, m("马七进九"), p.goal, 5).unwrap(),
        Feedback::Best
    );
    // with a bound of 5 moves, 炮三进三 still wins, one move slower (7 plies, not 5)
    assert_eq!(
        judge.judge(&p.position, m("炮三进三"), p.goal, 9).unwrap(),
        Feedback::Good { slower: 1 }
    );
    // but not within the stipulation of 3 moves
    assert_eq!(
        judge.judge(&p.position, m("炮三进三"), p.goal, 5).unwrap(),
        Feedback::Mistake
    );
    // a move that lets the general out of the corner loses the win within the stipulation
    assert_eq!(
        judge.judge(&p.position, m("马七进五"), p.goal, 5).unwrap(),
        Feedback::Mistake
    );
}

/// A 连将杀 (`checks = true`): the player's checks are judged by checks alone, and a move that
/// gives no check is a mistake by the puzzle's rule, with the reason and no refutation.
#[test]
fn a_checks_only_puzzle_takes_checks_and_refuses_a_quiet_move() {
    // the stored line, both sides' moves: solved, each of red's moves best
    let all = puzzle::load_builtin().unwrap();
    let p = all.iter().find(|p| p.entry.id == "checks-001").unwrap();
    let mut args = vec!["puzzle", "check", "checks-001", "--json"];
    args.extend(p.entry.line.iter().map(String::as_str));
    let o = canju(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["solved"], true);
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 13);
    assert!(
        moves
            .iter()
            .filter(|m| m["by"] == "player")
            .all(|m| m["feedback"] == "best"),
        "{v}"
    );
    // 兵九进一 gives no check: the win is there still, but not by checks alone
    let o = canju(&["puzzle", "check", "checks-001", "兵九进一", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["moves"][0]["feedback"], "mistake");
    assert!(
        v["moves"][0]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("gives no check")),
        "{v}"
    );
    assert!(v["refutation"].is_null(), "{v}");
    let o = canju(&["puzzle", "show", "checks-001"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("checking with every move"), "{text}");
}

#[test]
fn check_a_whole_line_the_players_moves_alone_and_a_mistake() {
    // the full line, the defender's moves included
    let o = canju(&[
        "puzzle",
        "check",
        "pattern-002",
        "帅五进一",
        "士５进６",
        "炮三平六",
        "士６退５",
        "马七进六",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("solved: pattern-002"));
    // the player's moves alone, in other notations: canju defends
    let o = canju(&[
        "puzzle",
        "check",
        "pattern-002",
        "e0e1",
        "C3.6",
        "马七进六",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["id"], "pattern-002");
    assert_eq!(v["solved"], true);
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 5);
    assert_eq!(moves[0]["by"], "player");
    assert_eq!(moves[1]["by"], "defender");
    for m in moves {
        assert!(m["feedback"].is_string() && m["plies_left"].is_number());
    }
    assert!(v["refutation"].is_null());
    // a mistake: exit 1, one line naming the refutation
    let o = canju(&["puzzle", "check", "pattern-002", "马七进五", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["solved"], false);
    assert_eq!(v["moves"][0]["feedback"], "mistake");
    assert!(v["refutation"].is_string());
    let e = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("refutation"), "{e}");
    // a line that stops early is not solved
    let o = canju(&["puzzle", "check", "pattern-002", "帅五进一"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn list_and_show() {
    let o = canju(&["puzzle", "list", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let all = v.as_array().unwrap();
    assert!(all.len() >= 55);
    for p in all {
        for key in [
            "id",
            "title",
            "collection",
            "source",
            "fen",
            "goal",
            "line",
            "tags",
            "difficulty",
        ] {
            assert!(!p[key].is_null(), "{key} in {p}");
        }
        assert!(
            p["line"]
                .as_array()
                .unwrap()
                .iter()
                .all(|m| m.as_str().unwrap().len() == 4)
        );
    }
    let o = canju(&["puzzle", "list", "--tag", "马后炮"]);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.contains("1 puzzle: 0 solved clean"), "{text}");
    let o = canju(&["puzzle", "show", "mate-001"]);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        text.contains("goal: black to move and win within 1 move"),
        "{text}"
    );
    let o = canju(&["puzzle", "show", "no-such"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no puzzle 'no-such'"));
}

#[test]
fn broken_collections_are_one_line_errors() {
    let dir_guard = TempDir::new("puzzles");
    let dir = dir_guard.0.clone();
    std::fs::create_dir_all(&dir).unwrap();
    for (text, needle) in [
        ("[[puzzle]]\nid = 3\n", "bad.toml"),
        (
            "[[puzzle]]\nid = \"x\"\ntitle = \"t\"\nsource = \"s\"\nfen = \"9/9 w\"\ngoal = \"红先胜\"\nline = []\ndifficulty = 1\n",
            "puzzle 'x': fen",
        ),
        (
            "[[puzzle]]\nid = \"x\"\ntitle = \"t\"\nsource = \"s\"\nfen = \"4k4/9/9/9/9/9/9/9/9/3K5 w\"\ngoal = \"黑先胜\"\nline = []\ndifficulty = 1\n",
            "but red is to move",
        ),
    ] {
        std::fs::write(dir.join("bad.toml"), text).unwrap();
        let o = canju(&["puzzle", "list", "--puzzles", dir.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1));
        let e = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains(needle), "{e}");
    }
}

#[test]
fn import_pgn_and_dhtmlxq_with_broken_games() {
    let dir_guard = TempDir::new("import");
    let dir = dir_guard.0.clone();
    let tables_guard = TempDir::new("import-tb");
    let tables = tables_guard.0.clone();
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/import");
    let run = |file: &str| {
        canju(&[
            "puzzle",
            "import",
            data.join(file).to_str().unwrap(),
            "--collection",
            "mine",
            "--puzzles",
            dir.to_str().unwrap(),
            "--dir",
            tables.to_str().unwrap(),
        ])
    };
    let o = run("sample.pgn");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(text.contains("2 imported"), "{text}");
    for needle in [
        "game 3: not added: FEN",
        "game 4: not added: move 1 '车一进一'",
        "game 5: not added: the result is a loss for the side to move",
        "game 6: not added: the line does not end in mate",
    ] {
        assert!(text.contains(needle), "{needle}: {text}");
    }
    // the same position from DhtmlXQ is not added twice; a broken block is named
    let o = run("sample.dhtml");
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        text.contains("the position is already puzzle mine-001"),
        "{text}"
    );
    assert!(
        text.contains("game 2: not added: [DhtmlXQ_binit] is not 64 digits"),
        "{text}"
    );
    // the collection reads back and its puzzles check
    let all = puzzle::load_dir(&dir).unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(all[0].entry.line.len(), 5);
    let judge = Judge::new(None);
    for p in &all {
        judge.verify(p).unwrap();
    }
    // into a fresh collection, the DhtmlXQ game is read the same as the PGN one
    std::fs::remove_dir_all(&dir).unwrap();
    let o = run("sample.dhtml");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    let all = puzzle::load_dir(&dir).unwrap();
    assert_eq!(
        all[0].entry.fen,
        "3k1a3/4a4/9/9/2N6/9/9/9/9/4K1C2 w - - 0 1"
    );
    assert_eq!(all[0].entry.title, "马后炮 (DhtmlXQ)");
}

#[test]
fn a_table_puzzle_played_through_and_a_slower_win_called_good() {
    let home_guard = TempDir::new("tplay");
    let home = home_guard.0.clone();
    let tables_guard = TempDir::new("tplay-tb");
    let tables = tables_guard.0.clone();
    let all = puzzle::load_builtin().unwrap();
    let p = all.iter().find(|p| p.entry.id == "endgame-001").unwrap();
    // the player's moves of the stored line; canju's replies are the line's other moves
    let script: String = p
        .entry
        .line
        .iter()
        .step_by(2)
        .map(|m| format!("{m}\n"))
        .collect();
    let dir = tables.to_str().unwrap();
    let o = canju_with_input(
        &["puzzle", "play", "endgame-001", "--dir", dir],
        &script,
        &home,
    );
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("building the tables of KNKA (马对士, rules asian) first"),
        "{err}"
    );
    assert!(
        text.contains("rules: asian: perpetual attack (check, threat of mate or chase) loses"),
        "{text}"
    );
    assert!(
        text.contains("solved: stalemate: black is not in check but has no move, which loses"),
        "{text}"
    );
    assert_eq!(
        text.matches(": best").count(),
        p.entry.line.len().div_ceil(2),
        "{text}"
    );
    // a winning move that is not the quickest: good, with how much slower
    let tb = canju::tablebase::Tablebase::with_rules(&tables, Rules::Asian);
    let ranked = tb.rank_moves(&p.position).unwrap();
    let best = ranked[0].value;
    let slower = ranked
        .iter()
        .find(|r| matches!(r.value, canju::tablebase::Value::Win(n) if Some(n) > best.plies()))
        .expect("a slower win");
    let o = Command::new(env!("CARGO_BIN_EXE_canju"))
        .args([
            "puzzle",
            "check",
            "endgame-001",
            &slower.mv.to_string(),
            "--json",
            "--dir",
            dir,
        ])
        .env("CANJU_HOME", &home)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["moves"][0]["feedback"], "good", "{v}");
    let text = canju_with_input(
        &["puzzle", "play", "endgame-001", "--dir", dir],
        &format!("{}\nquit\n", slower.mv),
        &home,
    );
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    assert!(text.contains("good: still wins,"), "{text}");
    assert!(text.contains("moves slower than the best"), "{text}");
    // a move that throws the win away says what is left: a draw, in moves, both languages
    let drawn = ranked
        .iter()
        .find(|r| r.value == canju::tablebase::Value::Draw)
        .expect("a move that draws");
    let script = format!("{}\nquit\n", drawn.mv);
    let args = ["puzzle", "play", "endgame-001", "--dir", dir];
    let text = canju_with_input(&args, &script, &home);
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    assert!(
        text.contains(": mistake: the win is gone: now a draw (with best play)"),
        "{text}"
    );
    assert!(!text.contains("plies"), "{text}");
    let mut zh = args.to_vec();
    zh.extend(["--lang", "zh"]);
    let text = canju_with_input(&zh, &script, &home);
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    assert!(
        text.contains("：错着，胜势已失，现在是和棋（双方走最佳着法）"),
        "{text}"
    );
    // (a replay minutes after the failure above: practice, which moves nothing)
    assert!(text.contains("练习：未解出"), "{text}");
}

/// Without a language set, the trainer speaks Chinese, one language to a line: the goal,
/// the judgement, the defence by its role, the mate named, the record.
#[test]
fn the_trainer_speaks_chinese_by_default() {
    let home_guard = TempDir::new("zh");
    let mut child = Command::new(env!("CARGO_BIN_EXE_canju"));
    child
        .args(["puzzle", "play", "pattern-002"])
        .env_remove("CANJU_TB_DIR")
        .env_remove("CANJU_LANG")
        .env("CANJU_HOME", &home_guard.0)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = child.spawn().unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all("帅五进一\n炮三平六\n马七进六\n".as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    for want in [
        "目标：红先胜（限3步，须将死）",
        "帅五进一：最佳，还有2步杀",
        "黑方应着：士５进６",
        "马七进六：最佳",
        "解出！将死：黑方被将军，无着可应",
        "记录：独立解出；你的等级分",
    ] {
        assert!(text.contains(want), "{want}: {text}");
    }
    for line in text.lines().filter(|l| l.contains('：')) {
        assert!(
            !["best", "move", "solved", "undo", "hint", "solution", "quit"]
                .iter()
                .any(|w| line.contains(w)),
            "a line in two languages: {line}"
        );
    }
    // a mistake, a hint asked before taking it back: Chinese alone, no command words in
    // English
    let zh_home = TempDir::new("zh-mistake");
    let o = canju_with_input(
        &["puzzle", "play", "pattern-002", "--lang", "zh"],
        "马七进八\nhint\n帅五进一\nquit\n",
        &zh_home.0,
    );
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    for want in [
        "马七进八：错着",
        "（悔棋再试）",
        "提示：先悔掉错着（悔棋）",
        "请先悔棋",
    ] {
        assert!(text.contains(want), "{want}: {text}");
    }
    for line in text.lines().filter(|l| l.contains('：')) {
        assert!(
            !line.bytes().any(|b| b.is_ascii_alphabetic()),
            "a line in two languages: {line}"
        );
    }
    // the language setting is checked
    let o = Command::new(env!("CARGO_BIN_EXE_canju"))
        .args(["puzzle", "play", "pattern-002"])
        .env("CANJU_LANG", "klingon")
        .env("CANJU_HOME", &home_guard.0)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("CANJU_LANG: language 'klingon'"));
}

#[test]
fn a_draw_puzzle_held_to_the_end_of_its_line() {
    let home_guard = TempDir::new("dplay");
    let home = home_guard.0.clone();
    let tables_guard = TempDir::new("dplay-tb");
    let tables = tables_guard.0.clone();
    let all = puzzle::load_builtin().unwrap();
    let p = all
        .iter()
        .find(|p| !p.goal.win && p.entry.title.starts_with("车对马双士"))
        .expect("a 车对马双士 defence");
    let script: String = p
        .entry
        .line
        .iter()
        .step_by(2)
        .map(|m| format!("{m}\n"))
        .collect();
    let o = canju_with_input(
        &[
            "puzzle",
            "play",
            &p.entry.id,
            "--dir",
            tables.to_str().unwrap(),
        ],
        &script,
        &home,
    );
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(text.contains("solved: the draw holds"), "{text}");
    assert!(!text.contains("mistake"), "{text}");
}

/// A defence that holds only by perpetual check (the horse checks on every move): a draw
/// without the rule, a loss under the rules players play under, and the judge says why.
/// (It was shipped as endgame-027 until the puzzles were checked under both rule sets.)
#[test]
fn a_perpetual_check_defence_is_a_mistake_under_the_rule() {
    let dir = TempDir::new("perpetual-puzzle");
    let collections = dir.0.join("puzzles");
    std::fs::create_dir_all(&collections).unwrap();
    std::fs::write(
        collections.join("rule.toml"),
        r#"[[puzzle]]
id = "perpetual-001"
title = "车对马双士 · 长将"
source = "the KRKNAA table"
fen = "9/9/3aka3/9/4n4/9/9/3K5/9/3R5 b - - 0 1"
goal = "黑先和"
line = ["马５进３", "帅六退一", "马３进２", "帅六进一", "马２退３", "帅六退一"]
difficulty = 4
"#,
    )
    .unwrap();
    let tables = dir.0.join("tables");
    // the command, with this test's puzzles and tables
    let (puzzles, tables) = (collections.to_str().unwrap(), tables.to_str().unwrap());
    let args =
        |command: &[&'static str]| [command, &["--puzzles", puzzles, "--dir", tables]].concat();
    let check = |rules: &'static str| {
        let a = args(&[
            "puzzle",
            "check",
            "perpetual-001",
            "马５进３",
            "马３进２",
            "马２退３",
            "--rules",
            rules,
            "--json",
        ]);
        canju(&a)
    };
    // without the rule, the checks hold the draw
    let o = check("none");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["rules"], "none");
    assert_eq!(j["solved"], true, "{j}");
    // under it, the first check already loses, and the feedback names the rule
    let o = check("asian");
    assert_eq!(o.status.code(), Some(1));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["rules"], "asian");
    assert_eq!(j["solved"], false, "{j}");
    let first = &j["moves"][0];
    assert_eq!(first["feedback"], "mistake", "{j}");
    assert!(
        first["reason"]
            .as_str()
            .is_some_and(|r| r.contains("长打作负")),
        "{j}"
    );
    assert!(j["refutation"].is_string(), "{j}");
    // the default is the rule set players play under
    let a = args(&["puzzle", "check", "perpetual-001", "马５进３"]);
    let o = canju(&a);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("mistake: it loses by the 长打 rule (长打作负)"),
        "{text}"
    );
    // played: the rule set is named, and neither hint nor solution invents a holding move
    let a = args(&["puzzle", "play", "perpetual-001"]);
    let o = canju_with_input(&a, "hint\nsolution\nquit\n", &dir.0);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("rules: asian"), "{text}");
    assert!(
        text.contains("hint: no move keeps the goal")
            && text.contains("solution: no move keeps the goal"),
        "{text}"
    );
}

/// The record cannot be gamed from the terminal: the solution shown and then leaving is
/// recorded (with help) at the moment it is shown, and playing the puzzle again at once,
/// clean, is practice: the record stays "with help" and the rating does not move.
#[test]
fn help_is_recorded_when_shown_and_replays_are_practice() {
    let home_guard = TempDir::new("honest");
    let home = home_guard.0.clone();
    let o = canju_with_input(
        &["puzzle", "play", "pattern-001"],
        "solution\nquit\n",
        &home,
    );
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        text.contains("recorded: with help (a hint or the solution); your rating"),
        "{text}"
    );
    let read = || -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(home.join("progress.json")).unwrap()).unwrap()
    };
    let after_help = read();
    assert_eq!(after_help["puzzles"]["pattern-001"]["last"], "helped");
    // the rating change is said, signed as lichess shows it
    let line = text.lines().find(|l| l.starts_with("recorded:")).unwrap();
    assert!(
        ["(+", "(−", "(±0)"].iter().any(|c| line.contains(c)),
        "{line}"
    );
    // replayed at once and solved clean: practice
    let o = canju_with_input(
        &["puzzle", "play", "pattern-001"],
        "前车进七\n帅六平五\n",
        &home,
    );
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(text.contains("practice: solved clean"), "{text}");
    let after = read();
    let r = &after["puzzles"]["pattern-001"];
    assert_eq!(
        (r["last"].as_str(), r["practice"].as_u64()),
        (Some("helped"), Some(1))
    );
    assert_eq!(after["player"], after_help["player"]);
    assert_eq!(r["review"], after_help["puzzles"]["pattern-001"]["review"]);
}

/// Whether a text holds a Chinese character (or full-width punctuation).
fn has_chinese(s: &str) -> bool {
    s.chars()
        .any(|c| ('\u{3000}'..='\u{9fff}').contains(&c) || ('\u{ff00}'..='\u{ffef}').contains(&c))
}

#[test]
fn list_show_and_the_trainer_speak_one_language() {
    let dir = TempDir::new("one-language");
    // English: every puzzle's line in the list, and whole puzzles shown, with no Chinese
    let o = canju_with_input(&["puzzle", "list", "--lang", "en"], "", &dir.0);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(text.lines().count() > 500, "{text}");
    for line in text.lines() {
        assert!(!has_chinese(line), "Chinese in the English list: {line}");
    }
    for id in [
        "pattern-002",
        "shiqingyaqu-077",
        "lanke-001",
        "endgame-002",
        "mate-001",
        "compositions-001",
        "checks-001",
    ] {
        let o = canju_with_input(&["puzzle", "show", id, "--lang", "en"], "", &dir.0);
        assert!(o.status.success());
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(!has_chinese(&text), "Chinese in the English {id}:\n{text}");
        assert!(text.contains(&format!("{id} · ")), "{text}");
    }
    let o = canju_with_input(
        &["puzzle", "show", "pattern-002", "--lang", "en"],
        "",
        &dir.0,
    );
    assert!(
        String::from_utf8_lossy(&o.stdout)
            .contains("pattern-002 · Horse behind the cannon (Mating patterns)")
    );
    // Chinese: the same in Chinese, labels and summary included
    let o = canju_with_input(
        &["puzzle", "show", "pattern-002", "--lang", "zh"],
        "",
        &dir.0,
    );
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    for want in [
        "红方走棋",
        "pattern-002 · 马后炮（杀法）",
        "目标：红先胜",
        "出处：",
        "标签：马后炮 三步杀 马 炮  难度：2",
    ] {
        assert!(text.contains(want), "{want}:\n{text}");
    }
    for word in ["goal", "source", "tags", "red to move"] {
        assert!(!text.contains(word), "{word} in the Chinese show:\n{text}");
    }
    let o = canju_with_input(
        &["puzzle", "list", "--tag", "马后炮", "--lang", "zh"],
        "",
        &dir.0,
    );
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(text.contains("红先胜 限3步  马后炮"), "{text}");
    assert!(
        text.contains("共1题：独立解出0，借助提示0，未解出0，待复习0"),
        "{text}"
    );
    // the trainer: moves it cannot take are refused in the player's language
    let script = "e0e5\nxyz\n马九进一\ne9e8\nquit\n";
    let o = canju_with_input(
        &["puzzle", "play", "pattern-002", "--lang", "zh"],
        script,
        &dir.0,
    );
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    for want in [
        "「e0e5」：e0 上的帅不能走到 e5",
        "「xyz」：不是着法",
        "「马九进一」：红方没有这个棋子",
        "「e9e8」：e9 上没有棋子",
    ] {
        assert!(text.contains(want), "{want}:\n{text}");
    }
    for word in ["illegal", "not a move", "has no", "red to move"] {
        assert!(
            !text.contains(word),
            "{word} in the Chinese trainer:\n{text}"
        );
    }
    let o = canju_with_input(
        &["puzzle", "play", "pattern-002", "--lang", "en"],
        script,
        &dir.0,
    );
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        text.contains("pattern-002 · Horse behind the cannon"),
        "{text}"
    );
    assert!(
        text.contains("rules: asian: perpetual attack (check, threat of mate or chase) loses"),
        "{text}"
    );
    assert!(text.contains("'e0e5': illegal here"), "{text}");
    // (the board in letters, with its coordinates: no Chinese label)
    assert!(text.contains("  a b c d e f g h i"), "{text}");
}

#[test]
fn a_shuffle_is_judged_as_a_repetition_and_ends_in_a_draw() {
    let home = TempDir::new("shuffle");
    let tables = TempDir::new("shuffle-tb");
    let dir = tables.0.to_str().unwrap();
    // 马对士, black wins: the general steps back and forth, the defence follows; the third
    // time a position comes, the game is drawn and the win is not reached
    let shuffle = [
        "将５退１",
        "将５进１",
        "将５退１",
        "将５进１",
        "将５退１",
        "将５进１",
    ];
    let script: String = shuffle.iter().map(|m| format!("{m}\n")).collect();
    let o = canju_with_input(
        &[
            "puzzle",
            "play",
            "endgame-002",
            "--dir",
            dir,
            "--lang",
            "zh",
        ],
        &script,
        &home.0,
    );
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        text.contains("将５进１：重复局面（第2次出现），胜势没有进展"),
        "{text}"
    );
    assert!(
        text.contains("将５退１：重复局面（第2次出现），胜势没有进展：仍是15步杀"),
        "{text}"
    );
    assert!(
        text.contains("失败：同一局面第三次出现，双方均非长打，按棋规不变作和，未能取胜"),
        "{text}"
    );
    assert!(text.contains("记录：未解出"), "{text}");
    // the same line checked whole: no repeated move is best, the game ends drawn
    let mut args = vec!["puzzle", "check", "endgame-002"];
    args.extend(shuffle);
    args.extend(["--dir", dir, "--json"]);
    let o = canju_with_input(&args, "", &home.0);
    assert_eq!(o.status.code(), Some(1));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["solved"], false);
    assert_eq!(j["ending"], "repetition");
    let moves = j["moves"].as_array().unwrap();
    let repeated: Vec<&serde_json::Value> = moves
        .iter()
        .filter(|m| m["repeats"].as_u64().unwrap_or(0) > 0)
        .collect();
    assert_eq!(repeated.len(), 2, "{j}");
    assert!(repeated.iter().all(|m| m["feedback"] == "good"), "{j}");
}

#[test]
fn a_finish_after_a_mistake_taken_back_reads_as_the_record_counts_it() {
    let home = TempDir::new("after-mistake");
    // 马后炮: a mistake, taken back, then the mate: the screen says what the record says
    let script = "c5b7\nundo\ne0e1\ng0d0\nc5d7\n";
    let o = canju_with_input(
        &["puzzle", "play", "pattern-002", "--lang", "zh"],
        script,
        &home.0,
    );
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        text.contains("走完（悔棋前有错着，此题记为未解出）：将死"),
        "{text}"
    );
    assert!(!text.contains("解出！"), "{text}");
    assert!(text.contains("记录：未解出"), "{text}");
    let o = canju_with_input(
        &["puzzle", "play", "pattern-002", "--lang", "en"],
        script,
        &home.0,
    );
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        text.contains(
            "finished after a mistake taken back (the puzzle counts as failed): checkmate"
        ),
        "{text}"
    );
}
