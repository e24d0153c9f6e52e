//! The library's services called as a program would call them, without the binary: a
//! puzzle attempt, a checked line, the reports of a table, a build's plan, a solve report,
//! an import and a training position. The binary's tests (`tests/it/cli.rs`, `tests/it/tb_cli.rs`,
//! `tests/it/puzzles.rs` …) show the same services through the command line.

use canju::puzzle::attempt::{Attempt, Ending, Hint, Outcome, Status};
use canju::puzzle::check::check_line;
use canju::puzzle::{Feedback, Judge, Puzzle};
use canju::solver::report::SolveReport;
use canju::tablebase::plan::Plan;
use canju::tablebase::{Rules, Tablebase, report};
use canju::{Color, Material, Position};

use crate::common::{TempDir, build_into};

fn builtin(id: &str) -> Puzzle {
    canju::puzzle::load_builtin()
        .unwrap()
        .into_iter()
        .find(|p| p.entry.id == id)
        .unwrap_or_else(|| panic!("no puzzle {id}"))
}

/// The player's moves of a puzzle's stored line (every other ply from the first).
fn player_moves(p: &Puzzle) -> Vec<canju::Move> {
    p.line.iter().step_by(2).copied().collect()
}

#[test]
fn an_attempt_solved_along_the_stored_line_counts_as_solved() {
    // a mate in 2 of the 实战杀局: the solver judges, no table is read
    let p = builtin("mate-010");
    let judge = Judge::new(None);
    let mut a = Attempt::new(&p, &judge);
    assert_eq!(a.status(), &Status::Playing);
    let moves = player_moves(&p);
    let last = moves.len() - 1;
    for (i, m) in moves.into_iter().enumerate() {
        let r = a.play(m).unwrap();
        assert_ne!(r.feedback, Feedback::Mistake, "{}", r.mv);
        if i < last {
            assert!(r.defence.is_some() && r.ending.is_none(), "{r:?}");
        } else {
            assert_eq!(r.ending, Some(Ending::Checkmated(!p.goal.side)), "{r:?}");
        }
    }
    assert_eq!(a.status(), &Status::Solved { clean: true });
    assert_eq!(a.outcome(), Outcome::Solved);
}

#[test]
fn a_mistake_is_refuted_taken_back_and_counts_against_the_attempt() {
    let p = builtin("mate-010");
    let judge = Judge::new(None);
    let mut a = Attempt::new(&p, &judge);
    // the first hint names the piece; the second the move
    let first = player_moves(&p)[0];
    match a.hint().unwrap() {
        Hint::Piece { square, .. } => assert_eq!(square, first.from()),
        h => panic!("{h:?}"),
    }
    assert!(matches!(a.hint().unwrap(), Hint::Move(_)));
    // a move that does not mate in time: the goal is gone
    let pos = p.position.clone();
    let wrong = pos
        .legal_moves()
        .iter()
        .copied()
        .find(|&m| judge.judge(&pos, m, p.goal, p.budget()).unwrap() == Feedback::Mistake)
        .expect("a losing move");
    let r = a.play(wrong).unwrap();
    assert_eq!(r.feedback, Feedback::Mistake);
    assert!(matches!(a.status(), Status::AfterMistake(t) if *t == r.mv));
    assert_eq!(a.hint().unwrap(), Hint::TakeBackFirst);
    assert_eq!(a.outcome(), Outcome::Failed);
    // the solution is from the position before the mistake: the stored line's length
    assert_eq!(a.solution().unwrap().len(), p.line.len());
    assert!(a.undo());
    assert_eq!(a.status(), &Status::Playing);
    assert_eq!(a.position(), &p.position);
    // solved after a mistake taken back still counts as failed
    for m in player_moves(&p) {
        a.play(m).unwrap();
    }
    assert_eq!(a.status(), &Status::Solved { clean: false });
    assert_eq!(a.outcome(), Outcome::Failed);
}

#[test]
fn a_line_is_checked_whole_with_the_defence_filled_in() {
    let p = builtin("mate-010");
    let judge = Judge::new(None);
    let mine: Vec<String> = player_moves(&p).iter().map(|m| m.to_string()).collect();
    let c = check_line(&p, &judge, &mine).unwrap();
    assert!(c.solved && !c.failed, "{c:?}");
    assert_eq!(c.moves.len(), p.line.len());
    assert!(c.moves.iter().step_by(2).all(|m| m.by == "player"));
    assert!(
        c.moves
            .iter()
            .skip(1)
            .step_by(2)
            .all(|m| m.by == "defender")
    );
    // a text that is no move is an error that says so, not a judgement
    assert!(check_line(&p, &judge, &["z9z9".to_string()]).is_err());
}

#[test]
fn table_reports_agree_with_the_table_and_with_each_other() {
    let d = TempDir::new("library-reports");
    let tb = build_into(&d, "KRK");
    let m: Material = "KRK".parse().unwrap();
    let pos: Position = "3k5/9/9/9/9/9/9/9/4R4/4K4 w".parse().unwrap();
    let probed = report::probe(&tb, &pos, true).unwrap();
    assert_eq!(probed.material, "KRK");
    assert_eq!(probed.verdict, "win");
    assert_eq!(probed.moves.len(), pos.legal_moves().len());
    // best first: the first move wins as fast as the position's value says (a move's
    // plies count the move itself); here 车五平六 mates at once
    assert_eq!(probed.plies, Some(1));
    assert_eq!(probed.moves[0].plies, probed.plies);
    assert_eq!(probed.moves[0].verdict, "win");
    let stats = report::stats(&tb, m, &|| {}).unwrap();
    let info = report::info(&tb, m, false, &|_, _| {}).unwrap();
    assert!(info.built);
    let legal = info.legal.unwrap();
    assert_eq!(legal[0], stats.side(Color::Red).legal);
    assert_eq!(legal[1], stats.side(Color::Black).legal);
    assert_eq!(
        stats.side(Color::Red).loss,
        0,
        "KRK: red to move never loses"
    );
    let mut seen = Vec::new();
    let total = report::verify_family(&tb, &m.build_order(), &|_, _, _| {}, &mut |v| {
        seen.push(v.material)
    })
    .unwrap();
    assert_eq!(seen, m.build_order());
    let each: u64 = m
        .build_order()
        .iter()
        .map(|t| canju::tablebase::verify::verify(&tb.table(*t).unwrap(), &tb, &|_, _| {}).unwrap())
        .sum();
    assert_eq!(total, each);
    // the plan of what is built: nothing left to build
    let plan = Plan::of(&[m], &tb);
    assert_eq!(plan.to_build().count(), 0);
    assert_eq!(plan.tables.len(), m.build_order().len());
    canju::tablebase::build::check_fits(m, &tb).unwrap();
    // a training position from the table: a win of the length asked for
    let request = canju::puzzle::train::TrainRequest {
        material: m,
        win: true,
        moves: (2, 2),
        side: None,
        seed: 7,
    };
    let p = canju::puzzle::train::training_puzzle(&tb, &request)
        .unwrap()
        .unwrap();
    let v = tb.probe(&p.position).unwrap();
    let moves = v.plies().unwrap().div_ceil(2);
    assert_eq!(moves, 2, "KRK's longest win is 2 moves");
    assert_eq!(p.goal.side, p.position.turn());
}

#[test]
fn a_missing_table_is_an_error_with_its_remedy() {
    use canju::tablebase::{HasRemedy, Remedy};
    let d = TempDir::new("library-missing");
    let tb = Tablebase::with_rules(&d.0, Rules::None);
    let pos: Position = "3k5/9/9/9/9/9/9/9/4R4/4K4 w".parse().unwrap();
    let e = report::probe(&tb, &pos, false).unwrap_err();
    assert!(e.to_string().starts_with("no KRK table"), "{e}");
    assert_eq!(
        e.remedy(),
        Some(Remedy::Build {
            path: d.0.join("KRK.ctb")
        })
    );
}

#[test]
fn a_solve_report_names_the_moves_in_three_notations() {
    let pos: Position = "3k5/9/9/9/9/9/9/9/R8/1R2K4 w".parse().unwrap();
    let s = canju::solver::solve(&pos, &canju::solver::Options::new(3), None).unwrap();
    let r = SolveReport::new(&pos, &s);
    assert_eq!(r.verdict, "win");
    assert_eq!(r.moves, r.plies.map(|n| n.div_ceil(2)));
    let first = &r.pv[0];
    assert_eq!(
        canju::notation::parse_move(&pos, &first.chinese).unwrap(),
        canju::notation::parse_move(&pos, &first.iccs).unwrap()
    );
    assert_eq!(r.pv.len() as u32, r.plies.unwrap());
}

#[test]
fn an_import_adds_what_holds_and_says_why_the_rest_does_not() {
    let d = TempDir::new("library-import");
    let tables = Tablebase::with_rules(d.0.join("tables"), Rules::Asian);
    let judge = Judge::new(Some(&tables));
    let p = builtin("mate-002");
    let line: Vec<String> = p.entry.line.clone();
    let pgn = format!(
        "[FEN \"{}\"]\n[Result \"1-0\"]\n1. {} 1-0\n\n[FEN \"{}\"]\n[Result \"0-1\"]\n1. {} 0-1\n",
        p.entry.fen, line[0], p.entry.fen, line[0]
    );
    let mut built = Vec::new();
    let r = canju::puzzle::import::import_into(
        &pgn,
        "test.pgn",
        "mine",
        &d.0,
        &judge,
        &Default::default(),
        &mut |q| {
            built.push(q.entry.id.clone());
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(r.added, vec!["mine-001".to_string()]);
    assert_eq!(r.rejected.len(), 1);
    assert_eq!(r.rejected[0].number, 2);
    assert!(
        r.rejected[0].reason.contains("loss for the side to move"),
        "{:?}",
        r.rejected
    );
    let back = canju::puzzle::load_file(&r.target).unwrap();
    assert_eq!(back.len(), 1);
    assert_eq!(back[0].position, p.position);
    // a name that is not a plain word is refused before anything is written
    let e = canju::puzzle::import::import_into(
        &pgn,
        "t",
        "../x",
        &d.0,
        &judge,
        &Default::default(),
        &mut |_| Ok(()),
    )
    .unwrap_err();
    assert!(
        matches!(e, canju::puzzle::import::ImportError::CollectionName(_)),
        "{e}"
    );
}
