//! The composition solver: classical mating patterns at their exact length, stalemate as
//! the only win, positions with no win within the bound, agreement with the tables on
//! every move, and the command line.

use std::process::Command;

use crate::common::{Rng, TempDir, build_into};
use canju::solver::{Length, Method, Options, Solution, Solver, Verdict, mate_distance, solve};
use canju::tablebase::{Tablebase, Value};
use canju::{Move, Position};
use proptest::prelude::*;

fn solved(fen: &str, max_moves: u32, tb: Option<&Tablebase>) -> Solution {
    let pos: Position = fen.parse().unwrap();
    solve(&pos, &Options::new(max_moves), tb).unwrap()
}

/// The line is legal, as long as the win, and ends with the defender unable to move.
fn check_line(fen: &str, s: &Solution) {
    let Verdict::Win { plies } = s.verdict else {
        panic!("{fen}: no win");
    };
    let mut pos: Position = fen.parse().unwrap();
    assert_eq!(s.pv.len() as u32, plies, "{fen}: line {:?}", s.pv);
    for &m in &s.pv {
        assert!(
            pos.legal_moves().contains(&m),
            "{fen}: {m} illegal in {pos}"
        );
        pos.play_unchecked(m);
    }
    assert!(
        pos.legal_moves().is_empty(),
        "{fen}: the line ends in {pos}"
    );
    assert_eq!(s.winning_moves[0].mv, s.pv[0]);
    assert!(
        s.winning_moves
            .iter()
            .all(|w| w.plies >= plies && w.plies % 2 == 1)
    );
}

/// Hand-built patterns; every length was also found by an independent engine
/// (Fairy-Stockfish, `go mate N`) in the same number of moves.
const PATTERNS: &[(&str, &str, u32, u32, &str)] = &[
    // name, FEN, bound in moves, shortest win in plies, a first move that achieves it
    ("双车错", "4k4/9/9/9/9/9/9/9/R8/R2K5 w", 3, 3, "a1a8"),
    ("马后炮", "3k1a3/4a4/9/9/2N6/9/9/9/9/4K1C2 w", 3, 5, "g0g1"),
    ("铁门栓", "5k3/9/9/9/9/9/9/9/4C4/R3K4 w", 3, 5, "a0a1"),
    ("重炮", "2bakab2/9/9/9/7C1/9/9/4C4/9/4K4 w", 2, 1, "h5e5"),
    (
        "重炮 (from afar)",
        "2bakab2/9/9/9/9/9/7C1/4C4/9/4K4 w",
        3,
        1,
        "h3e3",
    ),
    ("卧槽马", "4ka3/4a4/9/1N7/9/9/9/9/9/3RK4 w", 2, 1, "b6c8"),
    ("白脸将", "3k5/9/9/9/9/9/9/9/9/4K3R w", 2, 1, "i0i8"),
    ("天地炮", "3ak4/4a4/9/9/9/9/9/9/C8/4K2C1 w", 3, 1, "a1a9"),
    // the horse on the palace corner checks, the chariot holds rank 8
    ("挂角马", "3aka3/R8/9/1N7/9/9/9/9/9/5K3 w", 2, 1, "b6d7"),
    (
        "挂角马 (chariot first)",
        "3aka3/9/9/1N7/9/9/9/9/9/R4K3 w",
        3,
        3,
        "a0d0",
    ),
    // the horse on g7 takes e8 and f9, the general the d-file, the chariot checks
    ("钓鱼马", "4k4/9/6N2/9/9/9/9/9/9/R2K5 w", 2, 1, "a0a9"),
    // the general hemmed in by its own advisors (d9 is the cannon's screen and cannot
    // move, e8 is taken), f9 held by the red general; the soldier keeps black from
    // being stalemated instead
    ("闷宫", "3ak4/4a4/9/9/C8/2p6/9/9/9/5K3 w", 2, 1, "a5a9"),
    // the chariot takes the advisor in the palace's heart: the horse guards e8 and f9,
    // the chariot on a9 pins the other advisor
    (
        "大胆穿心",
        "R2ak4/4a4/6N2/9/9/2p6/9/4R4/9/5K3 w",
        2,
        1,
        "e2e8",
    ),
    // horse and general on opposite corners of the palace: the horse takes d8 and e9
    ("八角马", "3k5/9/5N3/9/9/2p6/9/9/9/R3K4 w", 2, 1, "a0a9"),
];

#[test]
fn a_quiet_defence_first_against_a_threat_of_mate_in_one() {
    // black threatens 车二退一 mate; red's only win in three moves takes that chariot first
    let fen = "4k4/9/9/9/9/9/9/7n1/R6r1/R4K3";
    let threat = solved(&format!("{fen} b"), 1, None);
    assert_eq!(threat.verdict, Verdict::Win { plies: 1 });
    let s = solved(&format!("{fen} w"), 3, None);
    assert_eq!(s.verdict, Verdict::Win { plies: 5 });
    let winners: Vec<String> = s.winning_moves.iter().map(|w| w.mv.to_string()).collect();
    assert_eq!(winners, ["a1h1"]);
    check_line(&format!("{fen} w"), &s);
}

/// The first 190 compositions of 适情雅趣 (the solve bench's data): where the file gives a
/// shortest win of at most 11 plies (Fairy-Stockfish's `go mate N` reached each), it is
/// proven at that length with a line that ends in mate, and one move less is proven
/// `none`; where it gives a win by checks alone (连将杀), the same by checks alone, with a
/// line of checks; where it says black threatens mate in one, the threat is real.
#[test]
fn compositions_at_their_exact_length_against_the_defenders_threats() {
    let text = include_str!("../../benches/data/shiqingyaqu.txt");
    let (mut wins, mut by_checks, mut threats) = (0, 0, 0);
    let mut solver = Solver::new(16);
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let parts: Vec<&str> = line.split(';').map(str::trim).collect();
        let (fen, label) = (parts[0], parts[3]);
        let pos: Position = fen.parse().unwrap();
        for (column, checks_only) in [(1, false), (2, true)] {
            let Ok(plies) = parts[column].parse::<u32>() else {
                continue;
            };
            let mut options = Options::new(plies.div_ceil(2));
            options.checks_only = checks_only;
            let s = solver.solve(&pos, &options, None).unwrap();
            assert_eq!(s.verdict, Verdict::Win { plies }, "{label}");
            check_line(fen, &s);
            if checks_only {
                // every move of red's in the line checks (played, then looked at)
                let mut after = pos.clone();
                for (i, &m) in s.pv.iter().enumerate() {
                    after.play_unchecked(m);
                    assert!(i % 2 == 1 || after.in_check(after.turn()), "{label}: {m}");
                }
                by_checks += 1;
            } else {
                wins += 1;
            }
            options.max_moves -= 1;
            if options.max_moves > 0 {
                let shorter = solver.solve(&pos, &options, None).unwrap();
                assert_eq!(shorter.verdict, Verdict::None, "{label}");
            }
        }
        if label.ends_with(", threat") {
            let black = fen.replacen(" w ", " b ", 1);
            let t = solved(&black, 1, None);
            assert_eq!(t.verdict, Verdict::Win { plies: 1 }, "{label}: no threat");
            threats += 1;
        }
    }
    assert!(
        wins >= 50 && by_checks >= 140 && threats >= 100,
        "{wins} {by_checks} {threats}"
    );
}

#[test]
fn classical_patterns_at_their_exact_length() {
    for &(name, fen, bound, plies, key) in PATTERNS {
        let s = solved(fen, bound, None);
        assert_eq!(s.verdict, Verdict::Win { plies }, "{name}");
        check_line(fen, &s);
        assert!(
            s.winning_moves
                .iter()
                .any(|w| w.mv.to_string() == key && w.plies == plies),
            "{name}: {key} not among {:?}",
            s.winning_moves
        );
        // one move less than the shortest: proven none
        if plies > 1 {
            let s = solved(fen, plies.div_ceil(2) - 1, None);
            assert_eq!(s.verdict, Verdict::None, "{name}");
            assert!(s.winning_moves.is_empty());
        }
    }
}

/// A solver that keeps its table from one proof to the next answers each position as a
/// fresh solve does (verdict, every winning first move with its length, the main line, the
/// depth searched): positions one after another, each again after others, and mate
/// distances for either side in between.
#[test]
fn a_reused_solver_answers_as_fresh_solves() {
    let mut positions: Vec<(&str, u32)> = PATTERNS
        .iter()
        .map(|&(_, fen, bound, _, _)| (fen, bound))
        .collect();
    positions.push(("3akab2/9/4b4/9/9/9/9/9/4R4/3RK4 w", 3));
    positions.push(("5k3/9/9/6N2/9/P8/9/9/9/4K4 w", 2));
    let again: Vec<(&str, u32)> = positions.iter().rev().copied().collect();
    positions.extend(again);
    let mut solver = Solver::new(4);
    for (fen, bound) in positions {
        let pos: Position = fen.parse().unwrap();
        let options = Options::new(bound);
        let fresh = solve(&pos, &options, None).unwrap();
        let reused = solver.solve(&pos, &options, None).unwrap();
        assert_eq!(reused.verdict, fresh.verdict, "{fen}");
        assert_eq!(reused.winning_moves, fresh.winning_moves, "{fen}");
        assert_eq!(reused.pv, fresh.pv, "{fen}");
        assert_eq!(reused.searched_plies, fresh.searched_plies, "{fen}");
        for side in [pos.turn(), !pos.turn()] {
            let plies = 2 * bound - 1;
            assert_eq!(
                solver
                    .mate_distance(&pos, side, plies, &options, None)
                    .unwrap(),
                mate_distance(&pos, side, plies, &options, None).unwrap(),
                "{fen}, {side:?} attacking"
            );
        }
    }
}

#[test]
fn stalemate_is_the_only_win() {
    // 钓鱼马 without the chariot: black's general has no move (the horse covers f8, the
    // generals may not face on file e); any quiet move that keeps it so stalemates it, and
    // no move mates by check
    let fen = "5k3/9/9/6N2/9/P8/9/9/9/4K4 w";
    let s = solved(fen, 2, None);
    assert_eq!(s.verdict, Verdict::Win { plies: 1 });
    check_line(fen, &s);
    let pos: Position = fen.parse().unwrap();
    for w in s.winning_moves.iter().filter(|w| w.plies == 1) {
        let mut p = pos.clone();
        p.play_unchecked(w.mv);
        assert!(!p.is_check(), "{} mates by check", w.mv);
        assert!(p.legal_moves().is_empty());
    }
    assert!(s.winning_moves.iter().any(|w| w.mv.to_string() == "a4a5"));
}

#[test]
fn no_win_within_the_bound_is_proven_none() {
    for (fen, bound) in [
        // the start position
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
            3,
        ),
        // 大胆穿心 needs more than three moves here (the peer finds seven)
        ("3akab2/9/4b4/9/9/9/9/9/4R4/3RK4 w", 3),
        // 挂角马 set up too far away
        ("3k5/4a4/3a5/9/2N6/9/9/9/9/4K4 w", 3),
        // a lone horse never mates a general with an advisor beside it
        ("3k5/4a4/9/9/9/9/9/9/9/4K1N2 w", 4),
    ] {
        let s = solved(fen, bound, None);
        assert_eq!(s.verdict, Verdict::None, "{fen}");
        assert!(s.winning_moves.is_empty() && s.pv.is_empty(), "{fen}");
        assert_eq!(s.searched_plies, 2 * bound - 1);
    }
}

#[test]
fn a_side_with_no_move_has_lost_already() {
    // black to move, mated by the chariot on rank 9
    let s = solved("R3k4/9/6N2/9/9/9/9/9/9/3K5 b", 3, None);
    assert!(s.no_legal_move);
    assert_eq!(s.verdict, Verdict::None);
}

#[test]
fn the_bound_is_checked() {
    let pos = Position::start();
    assert!(solve(&pos, &Options::new(0), None).is_err());
    assert!(solve(&pos, &Options::new(canju::solver::MAX_MOVES + 1), None).is_err());
}

#[test]
fn a_stop_gives_unknown_with_what_was_proven() {
    let pos = Position::start();
    let mut o = Options::new(15);
    o.time = Some(std::time::Duration::from_millis(300));
    let s = solve(&pos, &o, None).unwrap();
    assert_eq!(s.verdict, Verdict::Unknown);
    assert!(s.searched_plies < 29 && s.searched_plies % 2 == 1);
    // a node limit stops it too, near the limit
    let mut o = Options::new(15);
    o.max_nodes = Some(50_000);
    let s = solve(&pos, &o, None).unwrap();
    assert_eq!(s.verdict, Verdict::Unknown);
    assert!(s.nodes < 50_000 + 64 * 1024, "{}", s.nodes);
}

/// For each legal move: the table's value for the mover, as the solver would state it
/// (a win within `max_plies`).
fn table_lengths(tb: &Tablebase, pos: &Position, max_plies: u32) -> Vec<(String, u32)> {
    let mut out: Vec<(String, u32)> = tb
        .rank_moves(pos)
        .unwrap()
        .into_iter()
        .filter_map(|r| match r.value {
            Value::Win(n) if n <= max_plies => Some((r.mv.to_string(), n)),
            _ => None,
        })
        .collect();
    out.sort();
    out
}

fn solver_lengths(s: &Solution) -> Vec<(String, u32)> {
    let mut out: Vec<(String, u32)> = s
        .winning_moves
        .iter()
        .map(|w| (w.mv.to_string(), w.plies))
        .collect();
    out.sort();
    out
}

/// Random legal positions of a material (either side to move).
fn positions_of(material: &str, rng: &mut Rng, n: usize) -> Vec<Position> {
    let m: canju::game::material::Material = material.parse().unwrap();
    let mut out = Vec::new();
    while out.len() < n {
        let turn = if rng.below(2) == 0 {
            canju::Color::Red
        } else {
            canju::Color::Black
        };
        let mut setup = canju::Setup::empty(turn);
        let mut used = [false; 90];
        for p in m.pieces() {
            let squares: Vec<canju::Square> = canju::Square::all()
                .filter(|&s| p.can_stand_on(s) && !used[s.index()])
                .collect();
            let s = squares[rng.below(squares.len())];
            used[s.index()] = true;
            setup.put(s, p);
        }
        if let Ok(p) = setup.into_position() {
            out.push(p);
        }
    }
    out
}

#[test]
fn the_search_agrees_with_the_tables_on_every_move() {
    let d = TempDir::new("solver-tables");
    let tb = build_into(&d, "KNKA");
    build_into(&d, "KCAK");
    // the search knows which positions may have a table from the files present: four
    // pieces here, none for the other rule set or without a directory
    assert_eq!(tb.most_pieces_present(), 4);
    let asian = Tablebase::with_rules(&d.0, canju::tablebase::Rules::Asian);
    assert_eq!(asian.most_pieces_present(), 0);
    assert_eq!(Tablebase::new(d.0.join("missing")).most_pieces_present(), 0);
    let mut rng = Rng::new(99);
    let (mut wins, mut listed, mut fewer) = (0, 0, 0);
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    for (material, bound) in [("KNKA", 5u32), ("KCAK", 3)] {
        for pos in positions_of(material, &mut rng, 150) {
            let fen = pos.to_string();
            let max_plies = 2 * bound - 1;
            let want = table_lengths(&tb, &pos, max_plies);
            // the search alone, no table consulted (on one thread, so that the node
            // counts below are the same from run to run)
            let s = one_thread.install(|| solve(&pos, &Options::new(bound), None).unwrap());
            assert_eq!(solver_lengths(&s), want, "{fen}");
            listed += want.len();
            // and with the tables deciding the nodes they hold
            let t = one_thread.install(|| solve(&pos, &Options::new(bound), Some(&tb)).unwrap());
            assert_eq!(solver_lengths(&t), want, "{fen} (tables)");
            // (and the tables are read: they decide nodes the search would expand)
            fewer += usize::from(t.nodes < s.nodes);
            match tb.probe(&pos).unwrap() {
                Value::Win(n) if n <= max_plies => {
                    assert_eq!(s.verdict, Verdict::Win { plies: n }, "{fen}");
                    check_line(&fen, &s);
                    wins += 1;
                }
                _ => assert_eq!(s.verdict, Verdict::None, "{fen}"),
            }
        }
    }
    assert!(wins >= 5 && listed > 20, "{wins} {listed}");
    // (every first move leads into a table, which answers at once)
    assert_eq!(
        fewer, 300,
        "the tables cut the search in only {fewer} of 300 positions"
    );
}

/// The proof-number search (`Method::ProofNumber`) answers as the depth-first passes do:
/// the same verdict, every winning first move with the same length, the same line and the
/// same depth searched, on random positions of attacking material within four moves, by
/// any moves, by checks alone and by checkmate only, and with tables deciding the nodes
/// they hold.
#[test]
fn proof_numbers_answer_as_the_depth_first_passes() {
    let same = |pos: &Position, options: &Options, tb: Option<&Tablebase>| {
        let a = solve(pos, options, tb).unwrap();
        let mut pn = options.clone();
        pn.method = Method::ProofNumber;
        let b = solve(pos, &pn, tb).unwrap();
        assert_eq!(b.verdict, a.verdict, "{pos}");
        assert_eq!(b.winning_moves, a.winning_moves, "{pos}");
        assert_eq!(b.pv, a.pv, "{pos}");
        assert_eq!(b.searched_plies, a.searched_plies, "{pos}");
        assert_eq!((b.checks_only, b.mate_only), (a.checks_only, a.mate_only));
        a.verdict
    };
    let mut rng = Rng::new(0x9f);
    let mut wins = 0;
    for material in ["KRNKAA", "KRCKAB", "KNCKAA", "KRRKRA", "KNNPKAB", "KCCPKAA"] {
        for pos in positions_of(material, &mut rng, 12) {
            for mode in 0..3 {
                let mut options = Options::new(4);
                options.checks_only = mode == 1;
                options.mate_only = mode == 2;
                wins += usize::from(matches!(same(&pos, &options, None), Verdict::Win { .. }));
            }
        }
    }
    let d = TempDir::new("solver-pn-tables");
    let tb = build_into(&d, "KNKA");
    for pos in positions_of("KNKA", &mut rng, 30) {
        wins += usize::from(matches!(
            same(&pos, &Options::new(5), Some(&tb)),
            Verdict::Win { .. }
        ));
    }
    // (the compositions of the bench at their exact length and one move more)
    let text = include_str!("../../benches/data/solve.txt");
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let parts: Vec<&str> = line.split(';').map(str::trim).collect();
        let plies: u32 = parts[1].parse().unwrap();
        if plies > 7 {
            continue;
        }
        let pos: Position = parts[0].parse().unwrap();
        for moves in [plies.div_ceil(2), plies.div_ceil(2) + 1] {
            assert_eq!(
                same(&pos, &Options::new(moves), None),
                Verdict::Win { plies },
                "{pos}"
            );
        }
    }
    assert!(wins >= 40, "{wins} wins");
}

/// 适情雅趣 第034局 忙里偷闲: a mate in nine moves with quiet moves in it, one move past
/// what the depth-first passes prove in the audit's ten seconds. The proof-number search
/// proves it exactly (no win within 15 plies, a win in 17), with a line that ends in mate;
/// Fairy-Stockfish's `go mate 9` finds a mate in nine too.
#[test]
fn proof_numbers_reach_a_mate_in_nine_with_quiet_moves() {
    let fen = "2b1kaR2/4aR3/3nbP3/3Np4/9/9/4P4/1C2C4/3pAp2r/4KAB1c w - - 0 1";
    let pos: Position = fen.parse().unwrap();
    let mut solver = Solver::new(64);
    let p = solver
        .shortest_win(&pos, &Options::new(12), 0, None)
        .unwrap();
    assert_eq!(p.length, Length::Exact(17));
    assert_eq!(p.line.len(), 17);
    let mut at = pos.clone();
    let mut quiet = 0;
    for (i, &m) in p.line.iter().enumerate() {
        assert!(at.legal_moves().contains(&m), "{m} in {at}");
        at.play_unchecked(m);
        quiet += usize::from(i % 2 == 0 && !at.in_check(at.turn()));
    }
    assert!(
        at.legal_moves().is_empty() && at.in_check(at.turn()),
        "{at}"
    );
    assert!(quiet > 0, "a line of checks alone: {:?}", p.line);
    // known not to hold within the bound asked: no win within eight moves
    let none = solver
        .shortest_win(&pos, &Options::new(8), 0, None)
        .unwrap();
    assert_eq!(none.length, Length::None);
    assert!(none.line.is_empty());
    // a stop before the proof: what was proven so far
    let mut hurried = Options::new(12);
    hurried.max_nodes = Some(2_000);
    let p = solver.shortest_win(&pos, &hurried, 0, None).unwrap();
    assert!(
        matches!(p.length, Length::Unknown(n) if n < 17),
        "{:?}",
        p.length
    );
}

/// 适情雅趣 第095局 英雄贯斗: a win of many moves that the search from the top proves at
/// once (a win within 25 plies, in well under a second), while the shortest is out of reach
/// of the bounds from below in a few seconds (each disproof past 15 plies takes seconds to
/// minutes). The answer is a win within that many plies, with the bound below which there
/// is none, never a length claimed exact; its line is legal, within the length, and ends
/// with the defender mated or left only moves the rule forbids. The command says the same.
#[test]
fn proof_numbers_prove_a_long_win_before_its_shortest_is_known() {
    let fen = "9/1n2ak3/5aP2/3N5/6b2/5r3/1C7/4R1p2/1p3r1p1/1C2K2c1 w - - 0 1";
    let pos: Position = fen.parse().unwrap();
    let mut options = Options::new(40);
    // (perpetual check alone: what is tested is how a long win is reported, and the whole
    // rule's classification of every move searched takes time a 3 s budget does not have)
    options.rules = canju::tablebase::Rules::CheckOnly;
    options.time = Some(std::time::Duration::from_secs(3));
    let mut solver = Solver::new(64);
    let p = solver.shortest_win(&pos, &options, 0, None).unwrap();
    let Length::AtMost { plies, none_within } = p.length else {
        panic!("{:?}", p.length);
    };
    // (red to move: a win is an odd number of plies, and none within a shorter one)
    assert!(plies % 2 == 1 && plies <= 79, "{plies}");
    assert!(none_within < plies, "{none_within} {plies}");
    assert!(!p.line.is_empty() && p.line.len() as u32 <= plies);
    let mut at = pos.clone();
    for &m in &p.line {
        assert!(at.legal_moves().contains(&m), "{m} in {at}");
        at.play_unchecked(m);
    }
    let history = canju::solver::History::new(&pos, &p.line);
    let forbidden = canju::solver::rule::Path::forbidden_moves(options.rules, &history, &at);
    assert!(
        at.legal_moves().iter().all(|m| forbidden.contains(m)),
        "the line ends with the defender free to move: {at}"
    );
    let args = [
        "solve",
        "--fen",
        fen,
        "--max-moves",
        "40",
        "--method",
        "proof-number",
        "--time",
        "3",
        "--rules",
        "check-only",
    ];
    let out = canju(&[&args[..], &["--json"]].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["verdict"], "win-within", "{j}");
    assert!(j["plies"].as_u64().unwrap() % 2 == 1, "{j}");
    assert!(j["searched_plies"].as_u64().unwrap() < j["plies"].as_u64().unwrap());
    assert!(!j["pv"].as_array().unwrap().is_empty());
    let out = canju(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("a forced win within") && text.contains("the shortest not established"),
        "{text}"
    );
    assert!(text.contains("line: 1."), "{text}");
}

/// Whether `m` checks and the side that plays it then mates within `plies` (counting `m`)
/// giving check with every move, by trying every move: a check is found by playing the
/// move, independently of the solver's test.
fn checks_and_mates_within(pos: &Position, m: Move, plies: u32) -> bool {
    let mut after = pos.clone();
    after.play_unchecked(m);
    if !after.in_check(after.turn()) {
        return false;
    }
    let replies = after.legal_moves();
    replies.is_empty()
        || plies >= 3
            && replies.iter().all(|&r| {
                let mut next = after.clone();
                next.play_unchecked(r);
                next.legal_moves()
                    .iter()
                    .any(|&m| checks_and_mates_within(&next, m, plies - 2))
            })
}

/// 连将杀 (`checks_only`): on random positions of attacking material against defenders,
/// the solver's verdict and every winning first move with its length equal those of
/// playing every move, within three moves; a win by checks alone is never shorter than the
/// shortest win, and where quiet moves win sooner (or alone), the two differ.
#[test]
fn checks_only_wins_agree_with_playing_every_move() {
    const MOVES: u32 = 3;
    let mut rng = Rng::new(0x1ea5);
    let (mut wins, mut quiet_sooner) = (0, 0);
    for material in ["KRNKAA", "KRCKAB", "KNCKAA", "KRRKRA", "KNNPKAB", "KCCPKAA"] {
        for pos in positions_of(material, &mut rng, 80) {
            let mut options = Options::new(MOVES);
            options.checks_only = true;
            let s = solve(&pos, &options, None).unwrap();
            assert!(s.checks_only);
            // each first move's length by checks alone: 1 if it mates, else 2 + its
            // longest reply's
            let mut expected: Vec<(String, u32)> = pos
                .legal_moves()
                .iter()
                .filter_map(|&m| {
                    (1..=2 * MOVES - 1)
                        .step_by(2)
                        .find(|&n| checks_and_mates_within(&pos, m, n))
                        .map(|n| (m.to_string(), n))
                })
                .collect();
            let mut got: Vec<(String, u32)> = s
                .winning_moves
                .iter()
                .map(|w| (w.mv.to_string(), w.plies))
                .collect();
            expected.sort();
            got.sort();
            assert_eq!(got, expected, "{pos}");
            let shortest = expected.iter().map(|&(_, n)| n).min();
            match shortest {
                Some(plies) => {
                    assert_eq!(s.verdict, Verdict::Win { plies }, "{pos}");
                    check_line(&pos.to_string(), &s);
                    let mut after = pos.clone();
                    for (i, &m) in s.pv.iter().enumerate() {
                        after.play_unchecked(m);
                        assert!(i % 2 == 1 || after.in_check(after.turn()), "{pos}: {m}");
                    }
                    wins += 1;
                }
                None => assert_eq!(s.verdict, Verdict::None, "{pos}"),
            }
            let free = solve(&pos, &Options::new(MOVES), None).unwrap();
            match (free.verdict, s.verdict) {
                (Verdict::Win { plies: a }, Verdict::Win { plies: b }) => {
                    assert!(a <= b, "{pos}");
                    quiet_sooner += usize::from(a < b);
                }
                (Verdict::Win { .. }, Verdict::None) => quiet_sooner += 1,
                (Verdict::None, Verdict::Win { .. }) => panic!("{pos}: checks win, moves do not"),
                _ => {}
            }
        }
    }
    assert!(wins >= 20 && quiet_sooner >= 5, "{wins} {quiet_sooner}");
}

/// Whether the side that plays `m` then checkmates within `plies` (counting `m`), by
/// trying every move; a stalemate (困毙) is not a mate here.
fn checkmates_within(pos: &Position, m: Move, plies: u32) -> bool {
    let mut after = pos.clone();
    after.play_unchecked(m);
    let replies = after.legal_moves();
    if replies.is_empty() {
        return after.in_check(after.turn());
    }
    plies >= 3
        && replies.iter().all(|&r| {
            let mut next = after.clone();
            next.play_unchecked(r);
            next.legal_moves()
                .iter()
                .any(|&m| checkmates_within(&next, m, plies - 2))
        })
}

/// 将死 only (`mate_only`): on random positions of small attacking material (where
/// stalemates are common), every winning first move with its length equals that of playing
/// every move and counting only checkmates, within three moves; the line ends in
/// checkmate, and where a stalemate comes sooner the two proofs differ.
#[test]
fn mate_only_wins_agree_with_playing_every_move() {
    const MOVES: u32 = 3;
    let mut rng = Rng::new(0x3a7e);
    let (mut wins, mut stalemate_sooner) = (0, 0);
    for material in ["KRK", "KNPK", "KCCK", "KPPPK", "KNKA"] {
        for pos in positions_of(material, &mut rng, 40) {
            let mut options = Options::new(MOVES);
            options.mate_only = true;
            let s = solve(&pos, &options, None).unwrap();
            assert!(s.mate_only);
            let mut expected: Vec<(String, u32)> = pos
                .legal_moves()
                .iter()
                .filter_map(|&m| {
                    (1..=2 * MOVES - 1)
                        .step_by(2)
                        .find(|&n| checkmates_within(&pos, m, n))
                        .map(|n| (m.to_string(), n))
                })
                .collect();
            let mut got: Vec<(String, u32)> = s
                .winning_moves
                .iter()
                .map(|w| (w.mv.to_string(), w.plies))
                .collect();
            expected.sort();
            got.sort();
            assert_eq!(got, expected, "{pos}");
            match expected.iter().map(|&(_, n)| n).min() {
                Some(plies) => {
                    assert_eq!(s.verdict, Verdict::Win { plies }, "{pos}");
                    let mut end = pos.clone();
                    for &m in &s.pv {
                        end.play_unchecked(m);
                    }
                    assert!(
                        matches!(end.game_end(), Some(canju::GameEnd::Checkmate { .. })),
                        "{pos}: the line ends in {:?}",
                        end.game_end()
                    );
                    wins += 1;
                }
                None => assert_eq!(s.verdict, Verdict::None, "{pos}"),
            }
            let any = solve(&pos, &Options::new(MOVES), None).unwrap();
            match (any.verdict, s.verdict) {
                (Verdict::Win { plies: a }, Verdict::Win { plies: b }) => {
                    assert!(a <= b, "{pos}");
                    stalemate_sooner += usize::from(a < b);
                }
                (Verdict::Win { .. }, Verdict::None) => stalemate_sooner += 1,
                (Verdict::None, Verdict::Win { .. }) => panic!("{pos}: mate found, no win"),
                _ => {}
            }
        }
    }
    assert!(
        wins >= 10 && stalemate_sooner >= 3,
        "{wins} {stalemate_sooner}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn solve_and_probe_agree_on_random_krk_and_kpk_positions(seed in any::<u64>()) {
        use std::sync::OnceLock;
        static TB: OnceLock<(TempDir, Tablebase)> = OnceLock::new();
        let (_, tb) = TB.get_or_init(|| {
            let d = TempDir::new("solver-prop");
            crate::common::clean_at_exit(&d, None);
            let tb = build_into(&d, "KRK");
            build_into(&d, "KPK");
            build_into(&d, "KNK");
            (d, tb)
        });
        let mut rng = Rng::new(seed);
        let material = ["KRK", "KPK", "KNK"][rng.below(3)];
        let pos = positions_of(material, &mut rng, 1).pop().unwrap();
        let s = solve(&pos, &Options::new(4), None).unwrap();
        prop_assert_eq!(solver_lengths(&s), table_lengths(tb, &pos, 7), "{}", pos);
    }
}

fn canju(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_canju"))
        .args(args)
        .env_remove("CANJU_TB_DIR")
        .output()
        .unwrap()
}

#[test]
fn solve_command_text_and_json() {
    let fen = "3k1a3/4a4/9/9/2N6/9/9/9/9/4K1C2 w";
    let o = canju(&["solve", "--fen", fen, "--max-moves", "3"]);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("win: 红先胜, 三步杀 (5 plies, 3 moves"),
        "{text}"
    );
    assert!(
        text.contains("every winning first move within 3 moves:"),
        "{text}"
    );
    assert!(text.contains("line: 1. "), "{text}");
    let o = canju(&[
        "solve",
        "--fen",
        fen,
        "--max-moves",
        "3",
        "--json",
        "--threads",
        "2",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["verdict"], "win");
    assert_eq!(v["method"], "depth-first");
    // the proof-number search: the same answer
    let o = canju(&[
        "solve",
        "--fen",
        fen,
        "--max-moves",
        "3",
        "--json",
        "--method",
        "proof-number",
    ]);
    assert!(o.status.success());
    let pn: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(pn["method"], "proof-number");
    for field in [
        "verdict",
        "plies",
        "winning_moves",
        "pv",
        "searched_plies",
        "ending",
    ] {
        assert_eq!(pn[field], v[field], "{field}");
    }
    // the tables' rule set (asian by default); a forced mate wins under both
    assert_eq!(v["rules"], "asian");
    assert_eq!(v["plies"], 5);
    assert_eq!(v["moves"], 3);
    assert_eq!(v["pv"].as_array().unwrap().len(), 5);
    for w in v["winning_moves"].as_array().unwrap() {
        assert!(w["iccs"].is_string() && w["wxf"].is_string() && w["chinese"].is_string());
        assert!(w["plies"].as_u64().unwrap() >= 5);
    }
    assert!(v["nodes"].as_u64().unwrap() > 0);
    assert!(v["seconds"].is_number());
    // none, and notations
    let o = canju(&[
        "solve",
        "--fen",
        "3akab2/9/4b4/9/9/9/9/9/4R4/3RK4 w",
        "--max-moves",
        "2",
        "--notation",
        "iccs",
    ]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("none: no forced win within 2 moves (3 plies), proven"),
        "{text}"
    );
    // 连将杀: 适情雅趣 第002局 马蹀阏氏 has no forced win within six moves, and one of 20
    // moves by checks alone, opened by 前车进四 (its only first check that wins so)
    let fen = "C3kab2/4a4/n3c1n2/3Np1p2/1R4P2/1R7/4P4/4B4/1pCp1p3/1crAK1N2 w";
    let o = canju(&["solve", "--fen", fen, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (v["verdict"].as_str(), v["checks_only"].as_bool()),
        (Some("none"), Some(false))
    );
    let o = canju(&["solve", "--fen", fen, "--max-moves", "20", "--checks-only"]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("every move of red's must give check (连将杀)"),
        "{text}"
    );
    assert!(
        text.contains("win: 红先胜, 连将杀 二十步杀 (39 plies, 20 moves"),
        "{text}"
    );
    assert!(
        text.contains(
            "every winning first move by checks alone (连将杀) within 20 moves:\n  前车进四  "
        ),
        "{text}"
    );
    let o = canju(&[
        "solve",
        "--fen",
        fen,
        "--max-moves",
        "19",
        "--checks-only",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (v["verdict"].as_str(), v["checks_only"].as_bool()),
        (Some("none"), Some(true))
    );
    // unknown on a time limit
    let o = canju(&["solve", "--max-moves", "12", "--time", "0.3", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["verdict"], "unknown");
    assert!(v["plies"].is_null());
}

#[test]
fn solve_refuses_bad_input_in_one_line() {
    for (args, needle) in [
        (
            &["solve", "--max-moves", "0"][..],
            "--max-moves 0: between 1 and",
        ),
        (&["solve", "--max-moves", "100000"], "--max-moves 100000"),
        (&["solve", "--time=-1"], "--time -1"),
        (&["solve", "--time", "nan"], "--time NaN"),
        (&["solve", "--hash", "0"], "--hash 0"),
        (&["solve", "--fen", "9/9/9 w"], "--fen"),
        (&["solve", "--threads", "0"], "--threads 0"),
        (&["solve", "--method", "guess"], "the method 'guess'"),
    ] {
        let o = canju(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let e = String::from_utf8(o.stderr).unwrap();
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains(needle), "{args:?}: {e}");
    }
    // a side that has already lost: the immediate verdict
    let o = canju(&["solve", "--fen", "R3k4/9/6N2/9/9/9/9/9/9/3K5 b"]);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("has no legal move: it has already lost"),
        "{text}"
    );
}
