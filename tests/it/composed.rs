//! Positions as composers set them: soldiers behind their start or on their own back rank
//! are read, moved by the ordinary rules, shown with a note, searched by the solver and
//! never indexed by a table.

use canju::solver::{Options, Verdict, solve};
use canju::tablebase::TableError;
use canju::{Color, Kind, Piece, Position, Setup, Square};

use crate::common::{Rng, TempDir, build_into, canju};

/// 江湖排局's device: a black 卒 on its own back rank beside the general.
const BACK_RANK: &str = "3pk4/9/9/R8/9/9/9/9/4A4/4K4 w - - 0 1";

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

fn text(o: &std::process::Output) -> (String, String) {
    (
        String::from_utf8(o.stdout.clone()).unwrap(),
        String::from_utf8(o.stderr.clone()).unwrap(),
    )
}

#[test]
fn a_soldier_where_no_game_puts_it_is_read_and_named() {
    let pos: Position = BACK_RANK.parse().unwrap();
    let u = pos.unreachable_piece().expect("a composed placement");
    assert_eq!(u.square, sq("d9"));
    assert_eq!(u.piece, Piece::new(Color::Black, Kind::Soldier));
    assert_eq!(
        u.to_string(),
        "black soldier on d9 stands where no game can put it"
    );
    // a soldier behind its start on an odd file, and red's own back rank
    for fen in [
        "5k3/9/9/9/9/9/1P7/9/9/4K4 w - - 0 1",
        "5k3/9/9/9/9/9/9/9/9/2P1K4 w - - 0 1",
        "5k3/9/9/9/9/9/9/9/9/P3K4 b - - 0 1",
    ] {
        let pos: Position = fen.parse().unwrap();
        assert!(pos.unreachable_piece().is_some(), "{fen}");
    }
    // the game's own positions are all reachable
    assert!(Position::start().unreachable_piece().is_none());
    // what breaks the game is still refused: an advisor off its points, a general out of
    // its palace, the side not to move in check
    for (fen, what) in [
        ("3Ak4/9/9/9/9/9/9/9/4A4/4K4 w - - 0 1", "red advisor on d9"),
        ("4k4/9/9/9/9/9/9/9/9/K8 w - - 0 1", "red general on a0"),
        ("3bk4/9/9/9/9/9/9/9/9/4K4 w - - 0 1", "black elephant on d9"),
    ] {
        let e = fen.parse::<Position>().unwrap_err().to_string();
        assert!(e.contains(what), "{fen}: {e}");
    }
}

#[test]
fn a_composed_soldier_moves_by_the_ordinary_rules() {
    // on its own half it goes forward only, however far back it stands
    let pos: Position = "3pk4/9/9/9/9/9/9/9/4A4/4K4 b - - 0 1".parse().unwrap();
    let from = sq("d9");
    let to: Vec<String> = pos
        .legal_moves()
        .iter()
        .filter(|m| m.from() == from)
        .map(|m| m.to().to_string())
        .collect();
    assert_eq!(to, ["d8"]);
    let pos: Position = "5k3/9/9/9/9/9/9/9/9/2P1K4 w - - 0 1".parse().unwrap();
    let to: Vec<String> = pos
        .legal_moves()
        .iter()
        .filter(|m| m.from() == sq("c0"))
        .map(|m| m.to().to_string())
        .collect();
    assert_eq!(to, ["c1"]);
}

#[test]
fn every_command_takes_a_composed_position() {
    let o = canju(&["show", "--fen", BACK_RANK]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        out.contains("a composed position: black soldier on d9 stands where no game can put it"),
        "{out}"
    );
    let o = canju(&["moves", "--fen", BACK_RANK, "--notation", "iccs"]);
    assert!(o.status.success(), "{}", text(&o).1);
    assert!(text(&o).0.lines().any(|l| l == "a6a9"), "{}", text(&o).0);
    let o = canju(&["apply", "--fen", BACK_RANK, "a6a9", "e9f9"]);
    assert!(o.status.success(), "{}", text(&o).1);
    assert!(text(&o).0.contains("R2p1k3/9"), "{}", text(&o).0);
    let o = canju(&["perft", "2", "--fen", BACK_RANK]);
    assert!(o.status.success(), "{}", text(&o).1);
    let o = canju(&["solve", "--fen", BACK_RANK, "--max-moves", "3", "--json"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(out.contains("\"plies\": 5"), "{out}");
    let svg = canju(&["diagram", "--fen", BACK_RANK, "--output", "-"]);
    assert!(svg.status.success(), "{}", text(&svg).1);
    // probe says why there is no table value, on one line, without reading a table
    let o = canju(&["probe", "--fen", BACK_RANK, "--dir", "/nonexistent"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("no table value: black soldier on d9 stands where no game can put it"),
        "{err}"
    );
}

/// A random position of the given pieces with one soldier set where no game puts it.
fn composed(rng: &mut Rng, soldier: Color, others: &[Piece]) -> Position {
    loop {
        let mut setup = Setup::empty(if rng.below(2) == 0 {
            Color::Red
        } else {
            Color::Black
        });
        let mut used = [false; 90];
        let mut put = |setup: &mut Setup, p: Piece, ok: &dyn Fn(Square) -> bool| {
            let squares: Vec<Square> = Square::all()
                .filter(|&s| ok(s) && !used[s.index()])
                .collect();
            let s = squares[rng.below(squares.len())];
            used[s.index()] = true;
            setup.put(s, p);
        };
        let pawn = Piece::new(soldier, Kind::Soldier);
        put(&mut setup, pawn, &|s| !pawn.can_stand_on(s));
        for c in Color::ALL {
            let g = Piece::new(c, Kind::General);
            put(&mut setup, g, &|s| g.can_stand_on(s));
        }
        for &p in others {
            put(&mut setup, p, &|s| p.can_stand_on(s));
        }
        if let Ok(pos) = setup.into_position() {
            return pos;
        }
    }
}

#[test]
fn tables_never_index_a_composed_position_and_the_solver_searches_it_instead() {
    let dir = TempDir::new("composed");
    let tb = build_into(&dir, "KRPK");
    build_into(&dir, "KRKP");
    let chariot = Piece::new(Color::Red, Kind::Chariot);
    let horse = Piece::new(Color::Black, Kind::Horse);
    let mut rng = Rng::new(39);
    let options = Options::new(4);
    let mut searched = 0;
    for i in 0..40 {
        // the table's own material, and one capture away from it
        let (soldier, others) = match i % 3 {
            0 => (Color::Red, vec![chariot]),
            1 => (Color::Black, vec![chariot]),
            _ => (Color::Red, vec![chariot, horse]),
        };
        let pos = composed(&mut rng, soldier, &others);
        if others.len() == 1 {
            match tb.probe(&pos) {
                Err(TableError::Unreachable(u)) => {
                    assert_eq!(Some(u), pos.unreachable_piece(), "{pos}")
                }
                other => panic!("{pos}: the table answered {other:?}"),
            }
            // (every move keeps the soldier where it is, or moves it forward to where no
            // game puts it either)
            let ranked = tb.rank_moves(&pos);
            assert!(
                pos.legal_moves().is_empty() || matches!(ranked, Err(TableError::Unreachable(_))),
                "{pos}: {ranked:?}"
            );
        }
        // the same proof with the tables as without them
        let with = solve(&pos, &options, Some(&tb)).unwrap();
        let without = solve(&pos, &options, None).unwrap();
        assert_eq!(with.verdict, without.verdict, "{pos}");
        assert_eq!(with.pv.len(), without.pv.len(), "{pos}");
        let lengths = |s: &canju::solver::Solution| -> Vec<(canju::Move, u32)> {
            s.winning_moves.iter().map(|w| (w.mv, w.plies)).collect()
        };
        assert_eq!(lengths(&with), lengths(&without), "{pos}");
        searched += matches!(with.verdict, Verdict::Win { .. }) as u32;
    }
    assert!(searched > 0, "no win among the composed positions");
}
