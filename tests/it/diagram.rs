//! `canju diagram`: well-formed SVG with the board's points, lines and the right pieces on
//! the right points.

use std::process::Command;

fn diagram(args: &[&str]) -> (bool, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_canju"))
        .arg("diagram")
        .args(args)
        .output()
        .unwrap();
    (
        o.status.success(),
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
    )
}

fn check(fen: &str, flip: bool) {
    let mut args = vec!["--fen", fen, "-o", "-", "--arrow", "e0e1", "--mark", "e9"];
    if flip {
        args.push("--flip");
    }
    let (ok, svg, err) = diagram(&args);
    assert!(ok, "{err}");
    let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
    let class = |c: &str| {
        doc.descendants()
            .filter(|n| n.attribute("class") == Some(c))
            .collect::<Vec<_>>()
    };
    assert_eq!(class("point").len(), 90);
    assert_eq!(class("rank").len(), 10);
    assert_eq!(class("file-number").len(), 18);
    assert_eq!(class("palace").len(), 4);
    assert_eq!(class("arrow").len(), 1);
    assert_eq!(class("marked").len(), 1);
    let river: Vec<String> = class("river")
        .iter()
        .map(|n| n.text().unwrap().to_string())
        .collect();
    assert!(river.contains(&"楚 河".to_string()) && river.contains(&"汉 界".to_string()));
    // every piece on its point, with its character
    let pos: canju::Position = fen.parse().unwrap();
    let pieces = class("piece");
    assert_eq!(pieces.len(), pos.pieces().count());
    for (square, piece) in pos.pieces() {
        let g = pieces
            .iter()
            .find(|n| n.attribute("data-square") == Some(&square.to_string()))
            .unwrap_or_else(|| panic!("no piece drawn on {square}"));
        assert_eq!(
            g.attribute("data-piece"),
            Some(piece.fen_char().to_string().as_str())
        );
        let text = g.descendants().find(|n| n.has_tag_name("text")).unwrap();
        assert_eq!(text.text(), Some(piece.chinese().to_string().as_str()));
    }
    // the red general is drawn at the bottom unless flipped
    let y_of = |sq: &str| -> f64 {
        class("point")
            .iter()
            .find(|n| n.attribute("data-square") == Some(sq))
            .unwrap()
            .attribute("y")
            .unwrap()
            .parse()
            .unwrap()
    };
    assert_eq!(y_of("e0") > y_of("e9"), !flip);
}

#[test]
fn diagrams_have_the_board_and_the_pieces() {
    for fen in [
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
        "3k1a3/4a4/9/9/2N6/9/9/9/9/4K1C2 w",
        "2ba1kb2/P3a4/4c4/6p2/7np/9/8P/5N3/4A4/2BA1KBr1 b",
    ] {
        check(fen, false);
        check(fen, true);
    }
}

#[test]
fn bad_diagram_arguments_are_one_line_errors() {
    for (args, needle) in [
        (&["-o", "-", "--arrow", "zz"][..], "--arrow 'zz'"),
        (&["-o", "-", "--mark", "j5"], "--mark 'j5'"),
        (&["-o", "/nonexistent/dir/x.svg"], "/nonexistent/dir/x.svg"),
    ] {
        let (ok, _, err) = diagram(args);
        assert!(!ok);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(needle), "{err}");
    }
}
