//! The solver under the perpetual-check rule (`--rules asian`): wins that the defender can
//! stop only by checking forever, draws where both sides check (解将还将), and the asian
//! tables' values against the solver's on positions of small rule-sensitive endgames.

use crate::common::{TempDir, build_tables, canju, for_each_position};
use canju::Position;
use canju::game::material::Material;
use canju::solver::{self, History, Method, Options, Verdict};
use canju::tablebase::{Rules, Tablebase, Value};

fn options(max_moves: u32, rules: Rules) -> Options {
    let mut o = Options::new(max_moves);
    o.rules = rules;
    o.hash_mb = 16;
    o
}

fn solve(fen: &str, max_moves: u32, rules: Rules, method: Method) -> solver::Solution {
    let pos: Position = fen.parse().unwrap();
    let mut o = options(max_moves, rules);
    o.method = method;
    solver::solve(&pos, &o, None).unwrap()
}

/// 车对马: the horse's only defence is to check for ever (red's general steps between d0
/// and d1); under the rule black must change and is mated, without it the game is drawn.
const HORSE_CHECKS: &str = "9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1";

#[test]
fn a_defence_by_perpetual_check_fails_under_the_rule() {
    for method in [Method::DepthFirst, Method::ProofNumber] {
        let none = solve(HORSE_CHECKS, 10, Rules::None, method);
        assert_eq!(none.verdict, Verdict::None, "{method}");
        let asian = solve(HORSE_CHECKS, 10, Rules::Asian, method);
        assert_eq!(asian.verdict, Verdict::Win { plies: 15 }, "{method}");
        assert_eq!(asian.winning_moves.len(), 1);
        assert_eq!(asian.winning_moves[0].by_rule, Some(true), "{method}");
        assert_eq!(asian.pv.len(), 15);
        // one move less: no win, even by the rule
        let short = solve(HORSE_CHECKS, 7, Rules::Asian, method);
        assert_eq!(short.verdict, Verdict::None, "{method}");
    }
}

/// A win that needs no rule says so, and the two rule sets agree on it.
#[test]
fn a_win_without_the_rule_is_the_same_under_it() {
    // 双车错
    let fen = "4k4/9/9/9/9/9/9/9/R8/R2K5 w";
    let none = solve(fen, 3, Rules::None, Method::DepthFirst);
    let asian = solve(fen, 3, Rules::Asian, Method::DepthFirst);
    assert_eq!(none.verdict, asian.verdict);
    assert_eq!(
        none.winning_moves
            .iter()
            .map(|w| (w.mv, w.plies))
            .collect::<Vec<_>>(),
        asian
            .winning_moves
            .iter()
            .map(|w| (w.mv, w.plies))
            .collect::<Vec<_>>()
    );
    assert!(asian.winning_moves.iter().all(|w| w.by_rule == Some(false)));
    assert!(none.winning_moves.iter().all(|w| w.by_rule.is_none()));
}

/// The game's history counts: a position reached by the horse's checks before the root
/// makes the same check forbidden at once.
#[test]
fn the_history_before_the_root_counts() {
    let start: Position = HORSE_CHECKS.parse().unwrap();
    // red's general steps up, the horse checks, the general steps back, the horse checks
    // from b1 again: the root repeats the start
    let mut pos = start.clone();
    let mut line = Vec::new();
    for s in ["d0d1", "b1c3", "d1d0", "c3b1"] {
        let m = canju::notation::parse_move(&pos, s).unwrap();
        pos.play_unchecked(m);
        line.push(m);
    }
    assert_eq!(pos.key(), start.key());
    let history = History::new(&start, &line);
    let mut o = options(10, Rules::Asian);
    let fresh = solver::solve(&pos, &o, None).unwrap();
    o.history = history;
    let after = solver::solve(&pos, &o, None).unwrap();
    // both win; with the history black's check from c3 to b1 is forbidden one cycle
    // sooner, so the win cannot be longer
    let (Verdict::Win { plies: a }, Verdict::Win { plies: b }) = (fresh.verdict, after.verdict)
    else {
        panic!("{:?} {:?}", fresh.verdict, after.verdict);
    };
    assert!(b <= a, "{b} > {a}");
}

/// Both sides check on every move (解将还将): the repetition is allowed, so a defence by
/// checks answered with checks holds under the rule as without it.
#[test]
fn checks_answered_by_checks_are_no_win_by_the_rule() {
    // (no buildable endgame holds a forced 解将还将, docs/tablebases.md; in 车对车 every check
    // can be answered, and the rule decides nothing: the solver under it must agree with
    // the baseline's, and the table holds no value by the rule)
    let dir = TempDir::new("mutual-checks");
    let tb = Tablebase::with_rules(&dir.0, Rules::Asian);
    build_tables(&tb, "KRKR");
    let m: Material = "KRKR".parse().unwrap();
    let mut n = 0;
    let mut checked = 0;
    for_each_position(&m, &mut |pos| {
        n += 1;
        if n % 97 != 0 {
            return;
        }
        // KRKR has no win by the rule at all (each side can always answer a check with
        // one): the solver must never find one either
        let v = tb.probe(&pos).unwrap();
        let none = solver::solve(&pos, &options(4, Rules::None), None).unwrap();
        let asian = solver::solve(&pos, &options(4, Rules::Asian), None).unwrap();
        assert!(!v.by_rule(), "{pos}");
        assert_eq!(none.verdict, asian.verdict, "{pos}");
        checked += 1;
    });
    assert!(checked > 500, "{checked}");
}

/// The asian tables against the solver under the rule, searched without the tables, on
/// positions of 车对马, 车对炮 and 车兵对车 (the rule decides positions of the first): every
/// table draw or loss is no win for the solver, every table mate within the bound is a
/// solver's win no longer than it (shorter where the rule shortens it: the tables keep the
/// baseline's distance for every mate), every solver's win is a table win (by mate or by
/// the rule), and wins by the rule are found.
#[test]
fn the_asian_tables_agree_with_the_solver_under_the_rule() {
    let dir = TempDir::new("solver-rule-tables");
    let tb = Tablebase::with_rules(&dir.0, Rules::Asian);
    // (every `stride`th position, and every `rule_stride`th of those won or lost by the
    // rule, which are rare in 车对马 and most of the wins in 车兵对车)
    for (sig, stride, rule_stride, max_moves) in [
        ("KRKN", 2003, 7, 8),
        ("KRKC", 1907, 7, 6),
        ("KRPKR", 300_007, 1_000_003, 3),
    ] {
        let t = std::time::Instant::now();
        build_tables(&tb, sig);
        eprintln!("{sig}: built in {:.1} s", t.elapsed().as_secs_f64());
        let m: Material = sig.parse().unwrap();
        let bound = 2 * max_moves - 1;
        let (mut n, mut seen, mut rule_wins, mut rule_found, mut mates, mut shorter) =
            (0u64, 0, 0, 0, 0, 0);
        for_each_position(&m, &mut |pos| {
            n += 1;
            let v = tb.probe(&pos).unwrap();
            // every rule win, a sample of the rest
            if n % if v.by_rule() { rule_stride } else { stride } != 0 {
                return;
            }
            seen += 1;
            let s = solver::solve(&pos, &options(max_moves, Rules::Asian), None).unwrap();
            match (v, s.verdict) {
                (Value::Win(d), Verdict::Win { plies }) => {
                    assert!(plies <= d, "{pos}: solver {plies}, table {d}");
                    mates += 1;
                    shorter += (plies < d) as u32;
                }
                (Value::Win(d), Verdict::None) => assert!(d > bound, "{pos}: table {d}"),
                (Value::RuleWin(_), Verdict::Win { .. }) => {
                    rule_wins += 1;
                    rule_found += 1;
                }
                (Value::RuleWin(_), Verdict::None) => rule_wins += 1,
                (_, Verdict::Win { plies }) => panic!("{pos}: table {v:?}, solver {plies}"),
                (_, Verdict::None) => {}
                // (a depth-first proof without a time limit is never cut short)
                (_, Verdict::Unknown | Verdict::WinWithin { .. }) => unreachable!(),
            }
        });
        eprintln!(
            "{sig}: {seen} positions, {mates} table mates ({shorter} shorter by the rule), {rule_found} of {rule_wins} rule wins found within {max_moves} moves, {:.1} s",
            t.elapsed().as_secs_f64()
        );
        assert!(seen > 60, "{sig}: {seen}");
        if sig == "KRKN" {
            assert!(rule_found > 0, "no rule win found in {sig}");
        }
    }
}

/// The command line: `--rules asian` is the default and says so; `--rules none` proves
/// what the baseline proves.
/// `canju solve` on the 车对马 position within 8 moves, with `extra` arguments, no tables.
fn solve_cli(extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "solve",
        "--fen",
        HORSE_CHECKS,
        "--max-moves",
        "8",
        "--dir",
        "/nonexistent-canju-tables",
    ];
    args.extend_from_slice(extra);
    let out = canju(&args);
    assert!(out.status.success(), "{out:?}");
    out
}

#[test]
fn solve_names_the_rule_that_decided() {
    let j: serde_json::Value = serde_json::from_slice(&solve_cli(&["--json"]).stdout).unwrap();
    assert_eq!(j["rules"], "asian");
    assert_eq!(j["verdict"], "win");
    assert_eq!(j["plies"], 15);
    assert_eq!(j["winning_moves"][0]["by_rule"], true);
    let none = solve_cli(&["--rules", "none", "--json"]);
    let j: serde_json::Value = serde_json::from_slice(&none.stdout).unwrap();
    assert_eq!(j["rules"], "none");
    assert_eq!(j["verdict"], "none");
    // the text names the rule and shows where the defender had to change
    let text = String::from_utf8_lossy(&solve_cli(&[]).stdout).to_string();
    assert!(text.contains("only by the rule: 长打作负"), "{text}");
    assert!(text.contains("black may not play 马３进２"), "{text}");
}

/// The puzzle judge follows the game: the defence it plays is never a check the rule
/// forbids (one that would repeat the game's positions while the defender checks on every
/// move), where, judged as a fresh start, that check is its longest resistance.
#[test]
fn the_judge_never_defends_with_a_check_the_rule_forbids() {
    let dir = TempDir::new("judge-rule");
    // (no table in it: the solver judges, under the asian rule of the directory's tables)
    let tb = Tablebase::with_rules(&dir.0, Rules::Asian);
    let judge = canju::puzzle::Judge::new(Some(&tb));
    let start: Position = HORSE_CHECKS.parse().unwrap();
    let mut pos = start.clone();
    let mut moves = Vec::new();
    for s in ["d0d1", "b1c3", "d1d0"] {
        let m = canju::notation::parse_move(&pos, s).unwrap();
        pos.play_unchecked(m);
        moves.push(m);
    }
    let back = canju::notation::parse_move(&pos, "c3b1").unwrap();
    let red = canju::Color::Red;
    // as a fresh start, the horse's check back to b1 resists longest
    assert_eq!(judge.defence(&pos, red, 15).unwrap(), Some(back));
    // in the game it would repeat the start while black checks on every move: forbidden
    let history = History::new(&start, &moves);
    assert_eq!(
        canju::solver::rule::Path::forbidden_moves(Rules::Asian, &history, &pos),
        vec![back]
    );
    judge.follow(&start, &moves);
    let d = judge.defence(&pos, red, 15).unwrap().unwrap();
    assert_ne!(d, back);
    assert!(!judge.allowed_moves(&pos).contains(&back));
}

/// 适情雅趣 第077局 by checks alone after two moves of a game: under the rule the depth-first
/// proof runs out of its three quarters of the time (its transposition table is keyed by the
/// line of checks), and the baseline's shortest win, which the rule cannot lengthen, is the
/// answer: a win within 39 plies, its line legal under the rule and ending in mate.
#[test]
fn under_the_rule_a_stopped_proof_gives_the_baselines_win_as_a_win_within() {
    // 适情雅趣 第077局 after its first check and answer, those two moves the game's history:
    // by checks alone the baseline cannot settle it (the attacker might go back to the
    // game's earlier positions), and the rule's own search runs out of time
    let fen = "4ka1c1/9/3a5/9/4c1r1r/9/1RR6/9/3p1p3/C3K4 w - - 0 1";
    let start: Position = fen.parse().unwrap();
    let mut pos = start.clone();
    let mut line = Vec::new();
    for text in ["车八进六", "将５进１"] {
        let m = canju::notation::parse_move(&pos, text).unwrap();
        pos.play_unchecked(m);
        line.push(m);
    }
    let mut o = options(21, Rules::Asian);
    o.checks_only = true;
    o.history = History::new(&start, &line);
    o.time = Some(std::time::Duration::from_secs(2));
    let s = solver::solve(&pos, &o, None).unwrap();
    assert_eq!(s.verdict, Verdict::WinWithin { plies: 39 });
    assert!(s.searched_plies < 39, "{}", s.searched_plies);
    assert_eq!(s.pv.len(), 39);
    assert_eq!(s.ending(&pos), Some("checkmate"));
    assert!(s.winning_moves.iter().all(|w| w.by_rule == Some(false)));
    // a stop before the rule's time is up (here the node limit): the answer stays unknown
    o.max_nodes = Some(100_000);
    o.time = Some(std::time::Duration::from_secs(60));
    let s = solver::solve(&pos, &o, None).unwrap();
    assert_eq!(s.verdict, Verdict::Unknown);
}
