use super::*;
use crate::game::position::Position;

fn pos(fen: &str) -> Position {
    fen.parse().unwrap()
}

fn iccs(p: &Position, text: &str) -> String {
    parse_move(p, text)
        .unwrap_or_else(|e| panic!("{e}"))
        .to_string()
}

fn all(p: &Position, m: &str) -> [String; 3] {
    let m = parse_move(p, m).unwrap();
    Notation::ALL.map(|n| format_move(p, m, n, Style::default()))
}

#[test]
fn opening_moves_in_every_notation() {
    let p = Position::start();
    for text in [
        "h2e2",
        "H2-E2",
        "C2.5",
        "C2=5",
        "炮二平五",
        "砲二平五",
        "包二平五",
    ] {
        assert_eq!(iccs(&p, text), "h2e2", "{text}");
    }
    assert_eq!(all(&p, "h2e2"), ["h2e2", "C2.5", "炮二平五"]);
    assert_eq!(all(&p, "b0c2"), ["b0c2", "H8+7", "马八进七"]);
    assert_eq!(all(&p, "a0a1"), ["a0a1", "R9+1", "车九进一"]);
    assert_eq!(all(&p, "g0e2"), ["g0e2", "E3+5", "相三进五"]);
    assert_eq!(all(&p, "f0e1"), ["f0e1", "A4+5", "仕四进五"]);
    assert_eq!(all(&p, "e0e1"), ["e0e1", "K5+1", "帅五进一"]);
    assert_eq!(all(&p, "g3g4"), ["g3g4", "P3+1", "兵三进一"]);
    assert_eq!(iccs(&p, "傌八進七"), "b0c2");
    assert_eq!(iccs(&p, "俥九进一"), "a0a1");
    assert_eq!(iccs(&p, "帥五进一"), "e0e1");
}

#[test]
fn black_uses_digits_from_its_own_right() {
    let p = pos("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1");
    assert_eq!(all(&p, "h9g7"), ["h9g7", "H8+7", "马８进７"]);
    assert_eq!(all(&p, "b7e7"), ["b7e7", "C2.5", "炮２平５"]);
    for text in ["马８进７", "马8进7", "馬8進7", "H8+7", "h9g7"] {
        assert_eq!(iccs(&p, text), "h9g7", "{text}");
    }
    let m = parse_move(&p, "h9g7").unwrap();
    assert_eq!(
        format_move(&p, m, Notation::Chinese, Style { ascii_digits: true }),
        "马8进7"
    );
}

#[test]
fn two_like_pieces_on_a_file() {
    // red chariots on e3 and e5, cannons on b2 and b5
    let p = pos("5k3/9/9/9/4R4/1C7/4R4/1C7/9/3K5 w");
    assert_eq!(all(&p, "e5e6"), ["e5e6", "R++1", "前车进一"]);
    assert_eq!(all(&p, "e3e2"), ["e3e2", "R--1", "后车退一"]);
    assert_eq!(all(&p, "b4c4")[2], "前炮平七");
    assert_eq!(iccs(&p, "前車進一"), "e5e6");
    assert_eq!(iccs(&p, "後车退一"), "e3e2");
    assert_eq!(iccs(&p, "R+.4"), "e5f5");
    assert_eq!(iccs(&p, "C--1"), "b2b1");
}

#[test]
fn advisors_and_elephants_need_no_front_or_back() {
    // red advisors d0 and d2: the direction tells which one moves
    let p = pos("3k5/9/9/9/9/9/9/3A5/9/3AK4 w");
    assert_eq!(all(&p, "d0e1")[2], "仕六进五");
    assert_eq!(all(&p, "d2e1")[2], "仕六退五");
    assert_eq!(all(&p, "d2e1")[1], "A6-5");
    assert_eq!(iccs(&p, "前仕退五"), "d2e1");
    assert_eq!(iccs(&p, "后仕进五"), "d0e1");
}

#[test]
fn three_and_more_soldiers_on_a_file() {
    // red soldiers e5, e6, e7 (three on file 5)
    let p = pos("3k5/9/4P4/4P4/4P4/9/9/9/9/5K3 w");
    assert_eq!(all(&p, "e7f7")[2], "前兵平四");
    assert_eq!(all(&p, "e6f6")[2], "中兵平四");
    assert_eq!(all(&p, "e5f5")[2], "后兵平四");
    assert_eq!(all(&p, "e7f7")[1], "P+.4");
    assert_eq!(all(&p, "e6f6")[1], "P3.4");
    assert_eq!(all(&p, "e5f5")[1], "P-.4");
    // four on one file: 一..四 from the front, WXF ++ P+ P- --
    let p = pos("3k5/4P4/4P4/4P4/4P4/9/9/9/9/5K3 w");
    assert_eq!(all(&p, "e8f8")[2], "一兵平四");
    assert_eq!(all(&p, "e7f7")[2], "二兵平四");
    assert_eq!(all(&p, "e6f6")[2], "三兵平四");
    assert_eq!(all(&p, "e5f5")[2], "四兵平四");
    assert_eq!(all(&p, "e8f8")[1], "++.4");
    assert_eq!(all(&p, "e7f7")[1], "P+.4");
    assert_eq!(all(&p, "e6f6")[1], "P-.4");
    assert_eq!(all(&p, "e5f5")[1], "--.4");
    assert_eq!(iccs(&p, "前兵平四"), "e8f8");
    assert_eq!(iccs(&p, "二兵平四"), "e7f7");
    assert_eq!(iccs(&p, "三兵平四"), "e6f6");
    assert_eq!(iccs(&p, "后兵平四"), "e5f5");
}

#[test]
fn soldiers_on_two_files() {
    // red soldiers c5, c6 (file 7) and g5, g6 (file 3)
    let p = pos("3k5/9/9/2P3P2/2P3P2/9/9/9/9/5K3 w");
    // numbered from red's right: file 3 first (一 front, 二 back), then file 7
    assert_eq!(all(&p, "g6g7")[2], "一兵进一");
    assert_eq!(all(&p, "g5h5")[2], "二兵平二");
    assert_eq!(all(&p, "c6c7")[2], "三兵进一");
    assert_eq!(all(&p, "c5b5")[2], "四兵平八");
    assert_eq!(all(&p, "c6c7")[1], "7++1");
    assert_eq!(all(&p, "g5h5")[1], "3-.2");
    assert_eq!(iccs(&p, "前七进一"), "c6c7");
    assert_eq!(iccs(&p, "后三平二"), "g5h5");
    assert_eq!(iccs(&p, "7++1"), "c6c7");
    let e = parse_move(&p, "前兵进一").unwrap_err();
    assert!(matches!(e.reason, Reason::Ambiguous(_)), "{e}");
    assert!(e.to_string().contains("c6c7") && e.to_string().contains("g6g7"));
}

#[test]
fn errors_name_the_text_and_reason() {
    let p = Position::start();
    let e = parse_move(&p, "车五进一").unwrap_err().to_string();
    assert_eq!(e, "'车五进一': red has no chariot on file 5");
    let e = parse_move(&p, "车九平八").unwrap_err().to_string();
    assert_eq!(
        e,
        "'车九平八': illegal here: the red chariot on file 9 has no such move"
    );
    let e = parse_move(&p, "x2e2").unwrap_err().to_string();
    assert!(e.contains("not a move in ICCS"), "{e}");
    let e = parse_move(&p, "狗二平五").unwrap_err().to_string();
    assert_eq!(e, "'狗二平五': '狗' is not a piece");
    let e = parse_move(&p, "X2.5").unwrap_err().to_string();
    assert_eq!(e, "'X2.5': 'X' is not a piece");
    let e = parse_move(&p, "h9h8").unwrap_err().to_string();
    assert!(e.contains("black's"), "{e}");
    // flying general: the red general may not step onto the open e-file... here d0→? use a
    // position where the only piece between the generals moves away
    let p = pos("4k4/9/9/9/9/9/9/9/4C4/4K4 w");
    let e = parse_move(&p, "e1d1").unwrap_err().to_string();
    assert!(e.contains("flying general"), "{e}");
    let p = pos("4k4/9/9/9/9/9/9/9/4r4/3K5 w");
    let e = parse_move(&p, "d0e0").unwrap_err().to_string();
    assert!(e.contains("in check"), "{e}");
}
