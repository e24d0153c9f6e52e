//! Property tests: FEN round trips on arbitrary input, un-moves as exact inverses of moves,
//! and every move written in every notation reading back to itself.

use crate::common;

use std::collections::HashSet;

use canju::Position;
use canju::game::fen;
use canju::notation::{Notation, Style, format_move, parse_move, parse_move_as};
use proptest::prelude::*;

fn check_fen_result(text: &str) {
    if let Ok(pos) = fen::parse(text) {
        let written = pos.to_string();
        let again: Position = written.parse().expect("written FEN reads back");
        assert_eq!(again, pos);
        assert_eq!(again.to_string(), written);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn fen_parser_never_panics_on_any_string(s in ".*") {
        check_fen_result(&s);
    }

    #[test]
    fn fen_parser_never_panics_on_any_bytes(b in proptest::collection::vec(any::<u8>(), 0..120)) {
        if let Ok(pos) = fen::parse_bytes(&b) {
            let again: Position = pos.to_string().parse().unwrap();
            prop_assert_eq!(again, pos);
        }
    }

    #[test]
    fn fen_parser_on_fen_like_strings(
        s in "([1-9kKaAbBeEnNhHrRcCpPx]{1,9}/){9}[1-9kKaAbBeEnNhHrRcCpP]{1,9}( [wrbx])?( - - [0-9]{1,3} [0-9]{1,3})?"
    ) {
        check_fen_result(&s);
    }

    #[test]
    fn random_positions_round_trip_through_fen(seed in any::<u64>()) {
        let mut rng = common::Rng::new(seed);
        let pos = common::random_position(&mut rng, 32);
        let again: Position = pos.to_string().parse().unwrap();
        prop_assert_eq!(again, pos);
    }
}

/// For every legal move of a position: a non-capture appears among the un-moves of the
/// position after it and un-playing it restores the position; and every un-move of a
/// position leads to a legal position in which it is a legal move back.
fn check_unmoves(pos: &Position) {
    for &m in pos.legal_moves().iter() {
        let mut after = pos.clone();
        let undo = after.play_unchecked(m);
        if undo.captured.is_none() {
            assert!(
                after.unmoves().contains(&m),
                "{m} missing from the un-moves of {after} (after {pos})"
            );
            let mut back = after.clone();
            back.unplay_unchecked(m);
            assert_eq!(
                back.to_string().split(' ').take(2).collect::<Vec<_>>(),
                pos.to_string().split(' ').take(2).collect::<Vec<_>>()
            );
            assert_eq!(back.key(), pos.key());
        }
    }
    for &u in pos.unmoves().iter() {
        let mut before = pos.clone();
        before.unplay_unchecked(u);
        let fen = before.to_string();
        let checked: Position = fen
            .parse()
            .unwrap_or_else(|e| panic!("un-move {u} of {pos} gives an illegal {fen}: {e}"));
        assert!(
            checked.legal_moves().contains(&u),
            "{u} is not legal in {fen}"
        );
        let mut again = checked.clone();
        again.play_unchecked(u);
        assert_eq!(again.key(), pos.key());
        assert_eq!(again.piece_at(u.to()), pos.piece_at(u.to()));
    }
}

#[test]
fn unmoves_are_exact_inverses_of_moves() {
    let positions = common::sample_positions(1, 3000);
    let mut total = 0;
    for pos in &positions {
        check_unmoves(pos);
        total += pos.unmoves().len();
    }
    assert!(
        total > 10_000,
        "the sample exercises many un-moves ({total})"
    );
}

#[test]
fn every_move_round_trips_in_every_notation() {
    let positions = common::sample_positions(2, 3000);
    let mut checked = 0;
    let mut shapes = HashSet::new();
    for pos in &positions {
        let moves = pos.legal_moves();
        for notation in Notation::ALL {
            for ascii_digits in [false, true] {
                let style = Style { ascii_digits };
                let mut seen = HashSet::new();
                for &m in moves.iter() {
                    let text = format_move(pos, m, notation, style);
                    shapes.insert(shape(&text));
                    assert!(seen.insert(text.clone()), "{text} written twice in {pos}");
                    let back = parse_move_as(pos, &text, notation)
                        .unwrap_or_else(|e| panic!("{notation} {text} of {m} in {pos}: {e}"));
                    assert_eq!(back, m, "{notation} {text} in {pos}");
                    assert_eq!(
                        parse_move(pos, &text).unwrap(),
                        m,
                        "detected {text} in {pos}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 50_000, "{checked}");
    // The sample reaches every tandem form, so the round trip covers them.
    for form in [
        "前X", "中X", "后X", "一X", "X+", "X-", "++", "--", "9+", "9-", "93",
    ] {
        assert!(
            shapes.contains(form),
            "no move written as {form}…: {shapes:?}"
        );
    }
}

/// The designator part of a move text with pieces as X and numbers as 9.
fn shape(text: &str) -> String {
    text.chars()
        .take(2)
        .map(|c| {
            if canju::Kind::from_chinese(c).is_some() || "KAEHRCP".contains(c) {
                'X'
            } else if c.is_ascii_digit() && c != '3' || "１２３４５６７８９六七八九".contains(c)
            {
                '9'
            } else if c == '3' {
                '3'
            } else if "一二三四五".contains(c) {
                // ordinals 一..五 (red's file numerals only follow a piece)
                '一'
            } else {
                c
            }
        })
        .collect()
}

#[test]
fn incremental_zobrist_keys_match_keys_built_from_scratch() {
    let mut rng = common::Rng::new(3);
    let mut checked = 0;
    for fen in common::perft_fens() {
        let mut pos: Position = fen.parse().unwrap();
        for _ in 0..200 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.below(moves.len())];
            let before = pos.clone();
            let undo = pos.play_unchecked(m);
            let fresh: Position = pos.to_string().parse().unwrap();
            assert_eq!(pos.key(), fresh.key(), "after {m} in {before}");
            assert_ne!(pos.key(), before.key());
            let mut back = pos.clone();
            back.undo(m, undo);
            assert_eq!(back, before);
            checked += 1;
        }
    }
    assert!(checked > 500);
}
