//! Whole collections as their transcriptions give them: `canju puzzle audit` of a FEN list
//! and of a DhtmlXQ register (stated wins proven or not found, a stated draw refuted: a
//! cook; a stated draw confirmed by the tables), `canju puzzle import` of compositions
//! without moves (the solver's line), and the 将死-only stipulation.

use crate::common::{TempDir, canju};

fn out(o: &std::process::Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn err(o: &std::process::Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// A FEN list in kuiba1949/xiangqi-tools' form: a 三步杀 of 适情雅趣, the same diagram again, a
/// stated draw that 双车 wins (a cook), a position without a win in three moves, a stated draw
/// the tables confirm (a lone cannon cannot win), and one whose generals face.
const FEN_LIST: &str = r#"[FEN_INDEX "t-013"]
[EVENT "适情雅趣_测试 第013局 目视横流"]
[FEN "4k4/3P2P2/b2N2R2/7r1/2b6/9/9/3n5/4p3r/2R2K3 w - - 0 1"]

[FEN_INDEX "t-013b"]
[EVENT "适情雅趣_测试 第013局 又一"]
[FEN "4k4/3P2P2/b2N2R2/7r1/2b6/9/9/3n5/4p3r/2R2K3 w - - 0 1"]

[FEN_INDEX "t-2"]
[EVENT "适情雅趣_测试 第2局 双车（双车和单将）"]
[FEN "4k4/9/9/9/9/9/9/9/R8/R2K5 w - - 0 1"]

[FEN_INDEX "t-3"]
[EVENT "适情雅趣_测试 第3局 单兵"]
[FEN "3k5/9/9/9/9/9/4P4/9/9/4K4 w - - 0 1"]

[FEN_INDEX "t-4"]
[EVENT "适情雅趣_测试 第4局 孤炮（单炮和光将）"]
[FEN "3k5/9/9/9/9/9/9/4C4/9/4K4 w - - 0 1"]

[FEN_INDEX "t-5"]
[EVENT "适情雅趣_测试 第5局 坏"]
[FEN "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1"]
"#;

#[test]
fn an_audit_says_how_each_stated_result_stands() {
    let d = TempDir::new("audit");
    let file = d.0.join("list.fen");
    std::fs::write(&file, FEN_LIST).unwrap();
    // the lone cannon's table, so that its stated draw is confirmed exactly
    let o = canju(&["gen", "KCK", "--dir", d.arg()]);
    assert!(o.status.success(), "{}", err(&o));
    let args = [
        "puzzle",
        "audit",
        file.to_str().unwrap(),
        "--assume",
        "红先胜",
        "--max-moves",
        "3",
        "--checks-moves",
        "0",
        "--time",
        "20",
        "--dir",
        d.arg(),
        "--threads",
        "2",
    ];
    let o = canju(&args);
    let text = out(&o);
    assert!(o.status.success(), "{}", err(&o));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 8, "{text}");
    assert!(lines[0].starts_with("game 6: not read: t-5: "), "{text}");
    assert!(
        lines[1].contains("第013局 目视横流  [红先胜 (assumed)]  proven: 三步杀 (5 plies)"),
        "{text}"
    );
    assert!(
        lines[2].contains("duplicate: the same diagram as game 1"),
        "{text}"
    );
    assert!(
        lines[3].contains("[和]  cook (破局): 两步杀 (3 plies)"),
        "{text}"
    );
    // (the line that refutes the stated draw)
    assert_eq!(lines[4], "     line: 前车进七 将５平６ 帅六平五", "{text}");
    // (beyond the first two proofs' bounds, the proof-number search finds it)
    assert!(
        lines[5].contains("[红先胜 (assumed)]  proven: 五步杀 (9 plies, proof-number search)"),
        "{text}"
    );
    assert!(
        lines[6].contains("[和]  draw confirmed: tables: draw"),
        "{text}"
    );
    assert!(
        lines[7].contains(
            "5 compositions; 2 stated win, proven; 1 stated draw, refuted by a win (破局); 1 stated draw, confirmed by the tables; 1 the same diagram as an earlier one"
        ),
        "{text}"
    );
    // the JSON: each composition's line, and the counts
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let o = canju(&json_args);
    assert!(o.status.success(), "{}", err(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let e = &v["entries"];
    assert_eq!(e[0]["finding"], "proven");
    assert_eq!(e[0]["win"]["plies"], 5);
    assert_eq!(e[0]["win"]["by"], "search");
    assert_eq!(e[0]["win"]["line"].as_array().unwrap().len(), 5);
    assert_eq!(e[0]["win"]["line"][0], "车三平五");
    assert_eq!(e[1]["same_as"], 1);
    assert_eq!(e[2]["finding"], "cook");
    assert_eq!(e[2]["stated"], "draw");
    assert_eq!(e[2]["assumed"], false);
    assert_eq!(e[3]["finding"], "proven");
    assert_eq!(e[3]["win"]["by"], "long");
    assert_eq!(e[3]["win"]["plies"], 9);
    assert_eq!(e[3]["win"]["line"].as_array().unwrap().len(), 9);
    assert_eq!(e[4]["tables"], "draw");
    assert_eq!(v["counts"].as_array().unwrap().len(), 4);
    assert_eq!(v["long_max_moves"], 40);
    // without the long proof, the win is not found within the first one's bound, and that
    // much is proven
    json_args.extend(["--long-moves", "0"]);
    let o = canju(&json_args);
    assert!(o.status.success(), "{}", err(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let e = &v["entries"];
    assert_eq!(e[3]["finding"], "win_not_found");
    assert_eq!(e[3]["complete"], true);
    assert_eq!(e[3]["no_win_within"], 3);
    let o = canju(
        &args
            .iter()
            .copied()
            .chain(["--long-moves", "0"])
            .collect::<Vec<_>>(),
    );
    assert!(
        out(&o).contains("[红先胜 (assumed)]  not found: no forced win within 3 moves"),
        "{}",
        out(&o)
    );
    // the long proof within two moves more proves that much
    let o = canju(
        &args
            .iter()
            .copied()
            .chain(["--long-moves", "4"])
            .collect::<Vec<_>>(),
    );
    assert!(
        out(&o).contains("not found: no forced win within 4 moves  "),
        "{}",
        out(&o)
    );
    // without an assumed result, what no title states is reported as such
    let o = canju(&[
        "puzzle",
        "audit",
        file.to_str().unwrap(),
        "--max-moves",
        "3",
        "--checks-moves",
        "0",
        "--dir",
        d.arg(),
    ]);
    assert!(out(&o).contains("[unstated]  win: 三步杀"), "{}", out(&o));
    // bad bounds and files are one-line errors
    for (bad, what) in [
        (vec!["--max-moves", "0"], "--max-moves 0"),
        (vec!["--time", "0"], "--time 0"),
        (vec!["--long-moves", "61"], "--long-moves 61"),
        (vec!["--long-time=-3"], "--long-time -3"),
        (vec!["--assume", "黑胜"], "--assume '黑胜'"),
    ] {
        let mut a = vec!["puzzle", "audit", file.to_str().unwrap()];
        a.extend(bad);
        let o = canju(&a);
        assert_eq!(o.status.code(), Some(2), "{}", err(&o));
        assert!(err(&o).contains(what), "{}", err(&o));
        assert_eq!(err(&o).lines().count(), 1);
    }
    let o = canju(&["puzzle", "audit", "/nonexistent/list.fen"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("/nonexistent/list.fen"), "{}", err(&o));
}

/// A DhtmlXQ register as chasoft/community-xiangqi-games-database keeps 烂柯神机: a stated
/// win, the same diagram under a second key, and a stated draw.
const REGISTER: &str = r##"{"meta":{"title":"T","readme":"# 测试局\n"},"details":{
 "001-双车-红胜":{"preview":"9999999999999999999999999999999999999941999999999999999999999999","description":"双车 红胜"},
 "018-车马相须-红胜":{"preview":"4525999959999999999999999999999999999941409999999999993848679999","description":"车马相须 红胜"},
 "018-车马相须-(红胜)":{"preview":"4525999959999999999999999999999999999941409999999999993848679999","description":"车马相须 红胜"},
 "050-割地求和-正和":{"preview":"0031999949999999683280999999999999996099429982999940993847586999","description":"割地求和 正和"}}}"##;

#[test]
fn import_takes_a_register_and_proves_each_stated_win() {
    let d = TempDir::new("import-register");
    let file = d.0.join("lanke.register.json");
    std::fs::write(&file, REGISTER).unwrap();
    let puzzles = d.0.join("puzzles");
    let o = canju(&[
        "puzzle",
        "import",
        file.to_str().unwrap(),
        "--collection",
        "lanke",
        "--puzzles",
        puzzles.to_str().unwrap(),
        "--dir",
        d.arg(),
        "--max-moves",
        "7",
    ]);
    let text = out(&o);
    assert!(o.status.success(), "{text}{}", err(&o));
    assert!(text.starts_with("1 imported into "), "{text}");
    // the first key's diagram has one piece on the board
    assert!(
        text.contains("game 1: not added: 001-双车-红胜: position: red has no general"),
        "{text}"
    );
    assert!(
        text.contains("game 4: not added: no moves, and a stated draw"),
        "{text}"
    );
    let written = std::fs::read_to_string(puzzles.join("lanke.toml")).unwrap();
    assert!(
        written.contains("title = \"测试局 第018局 车马相须 红胜\""),
        "{written}"
    );
    assert!(written.contains("goal = \"红先胜\""), "{written}");
    assert!(written.contains("tags = [\"lanke\", "), "{written}");
    // the puzzle plays: its own line solves it
    let o = canju(&[
        "puzzle",
        "show",
        "lanke-001",
        "--puzzles",
        puzzles.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", err(&o));
    // a second import adds nothing: the position is there already
    let o = canju(&[
        "puzzle",
        "import",
        file.to_str().unwrap(),
        "--collection",
        "other",
        "--puzzles",
        puzzles.to_str().unwrap(),
        "--dir",
        d.arg(),
        "--max-moves",
        "7",
    ]);
    assert!(
        out(&o).contains("the position is already puzzle lanke-001"),
        "{}",
        out(&o)
    );
}

#[test]
fn mate_only_tells_checkmate_from_stalemate() {
    // a stalemate in one ply (帅五进一 takes black's last move) and no mate within six
    let fen = "5k3/9/9/6N2/9/P8/9/9/9/4K4 w - - 0 1";
    let o = canju(&["solve", "--fen", fen, "--max-moves", "6"]);
    assert!(out(&o).contains("line: 1. 帅五进一 困毙"), "{}", out(&o));
    let o = canju(&["solve", "--fen", fen, "--max-moves", "6", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["ending"], "stalemate");
    assert_eq!(v["mate_only"], false);
    let o = canju(&[
        "solve",
        "--fen",
        fen,
        "--max-moves",
        "6",
        "--mate-only",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["verdict"], "none", "{v}");
    assert_eq!(v["mate_only"], true);
    assert_eq!(v["ending"], serde_json::Value::Null);
    // 卧槽马 with a rook behind: the mate, named as such
    let o = canju(&[
        "solve",
        "--fen",
        "4ka3/4a4/9/1N7/9/9/9/9/9/3RK4 w - - 0 1",
        "--max-moves",
        "1",
        "--mate-only",
    ]);
    assert!(out(&o).contains("line: 1. 马八进七 将死"), "{}", out(&o));
}

/// `canju puzzle audit FILE` with small bounds (3 moves, nothing by checks alone or by the
/// long proof, unless `extra` says otherwise) and the tables of `dir`.
fn audit_small(file: &std::path::Path, dir: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["puzzle", "audit", file.to_str().unwrap(), "--dir", dir];
    for (flag, value) in [
        ("--max-moves", "3"),
        ("--checks-moves", "0"),
        ("--long-moves", "0"),
    ] {
        if !extra.contains(&flag) {
            args.extend([flag, value]);
        }
    }
    args.extend(extra);
    canju(&args)
}

fn entry(o: &std::process::Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", err(o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["entries"][0].clone()
}

/// A stated draw that no win refutes is played out to a table draw: the chariot takes the
/// soldier (captures first), and 车对车 is a draw by the table; the same with the line
/// turned off leaves it "not refuted".
#[test]
fn a_stated_draw_is_played_out_to_a_table_draw() {
    let d = TempDir::new("audit-draw");
    let file = d.0.join("draws.fen");
    std::fs::write(
        &file,
        "[FEN_INDEX \"d-1\"]\n[EVENT \"测试 第1局 车兵（车和车卒）\"]\n[FEN \"3k4r/9/9/9/9/9/4p4/9/4R4/5K3 w - - 0 1\"]\n",
    )
    .unwrap();
    let o = canju(&["gen", "KRKR", "--dir", d.arg()]);
    assert!(o.status.success(), "{}", err(&o));
    let o = audit_small(&file, d.arg(), &[]);
    let text = out(&o);
    assert!(o.status.success(), "{text}{}", err(&o));
    assert!(
        text.contains("[和]  draw played out: no forced win within 3 moves"),
        "{text}"
    );
    assert!(
        text.contains(
            "played out (the line below): 1 moves to a table draw (车对车), each move safe from a forced loss within 3 moves"
        ),
        "{text}"
    );
    assert!(text.contains("     line: 车五进二\n"), "{text}");
    assert!(
        text.contains("1 stated draw, no win found, played out to a table draw"),
        "{text}"
    );
    let e = entry(&audit_small(&file, d.arg(), &["--json"]));
    assert_eq!(e["finding"], "draw_played_out", "{e}");
    assert_eq!(e["draw_line"]["end"], "table-draw");
    assert_eq!(e["draw_line"]["line"][0], "车五进二");
    assert_eq!(e["draw_line"]["safe_within"], 3);
    // without the line
    let e = entry(&audit_small(
        &file,
        d.arg(),
        &["--json", "--draw-moves", "0"],
    ));
    assert_eq!(e["finding"], "draw_not_refuted");
    assert_eq!(e["draw_line"], serde_json::Value::Null);
    // without the table, the line goes on and says where it ended
    let empty = d.0.join("empty");
    std::fs::create_dir(&empty).unwrap();
    let e = entry(&audit_small(
        &file,
        empty.to_str().unwrap(),
        &["--json", "--draw-time", "2"],
    ));
    assert_eq!(e["finding"], "draw_not_refuted", "{e}");
    assert_ne!(e["draw_line"]["end"], "table-draw");
    // a bad bound is a one-line error
    let o = audit_small(&file, d.arg(), &["--draw-time", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("--draw-time 0"), "{}", err(&o));
}

/// A stated draw whose first move captures into a table's material that the tables win,
/// beyond the proofs' bound: a cook (破局) all the same, its length the table's plus one,
/// the shortest not established. 车九进二 takes the chariot and leaves 车对单士, lost for
/// black in 8 plies.
#[test]
fn a_first_move_into_a_won_table_is_a_cook_beyond_the_bound() {
    let d = TempDir::new("audit-into-tables");
    let file = d.0.join("cook.fen");
    std::fs::write(
        &file,
        "[FEN_INDEX \"c-1\"]\n[EVENT \"测试 第1局 车（车和车士）\"]\n[FEN \"3ak4/9/9/9/9/9/r8/9/R8/5K3 w - - 0 1\"]\n",
    )
    .unwrap();
    let o = canju(&["gen", "KRKA", "--dir", d.arg()]);
    assert!(o.status.success(), "{}", err(&o));
    let o = audit_small(&file, d.arg(), &[]);
    let text = out(&o);
    assert!(
        text.contains("[和]  cook (破局): a win within 5 moves (9 plies, a first move into a table's material, then the tables; the shortest not established: none within 3 moves)"),
        "{text}"
    );
    assert!(text.contains("     line: 车九进二\n"), "{text}");
    let e = entry(&audit_small(&file, d.arg(), &["--json"]));
    assert_eq!(e["finding"], "cook", "{e}");
    assert_eq!(e["win"]["by"], "into-tables");
    assert_eq!(e["win"]["plies"], 9);
    assert_eq!(e["win"]["shortest"], false);
    // without the table, nothing is found within the bound
    let empty = d.0.join("empty");
    std::fs::create_dir(&empty).unwrap();
    let e = entry(&audit_small(
        &file,
        empty.to_str().unwrap(),
        &["--json", "--draw-moves", "0"],
    ));
    assert_eq!(e["finding"], "draw_not_refuted", "{e}");
}

/// 适情雅趣 第077局 by checks alone under the rule, within a second: no defender's move is
/// ever forbidden while the attacker checks on every move, so the baseline's proof on plain
/// keys is the rule's (its own search, keyed by the line of checks, ran out of time here),
/// and the win is proven the shortest.
#[test]
fn under_the_rule_a_win_by_checks_is_proven_as_short_as_the_baselines() {
    let d = TempDir::new("audit-within");
    let file = d.0.join("077.fen");
    std::fs::write(
        &file,
        "[FEN_INDEX \"x\"]\n[EVENT \"适情雅趣 第077局 双蝶翻风\"]\n[FEN \"4ka1c1/9/3a5/9/4c1r1r/9/1RR6/9/3p1p3/C3K4 w - - 0 1\"]\n",
    )
    .unwrap();
    let e = entry(&audit_small(
        &file,
        d.arg(),
        &[
            "--assume",
            "红先胜",
            "--max-moves",
            "1",
            "--checks-moves",
            "21",
            "--time",
            "1",
            "--json",
        ],
    ));
    assert_eq!(e["finding"], "proven", "{e}");
    assert_eq!(e["win"]["by"], "checks");
    assert_eq!(e["win"]["plies"], 41);
    // (the baseline's proof by checks alone is the rule's: the shortest, not by the rule)
    assert_eq!(e["win"]["shortest"], true);
    assert_eq!(e["win"]["by_rule"], false);
    assert_eq!(e["win"]["line"].as_array().unwrap().len(), 41);
}
