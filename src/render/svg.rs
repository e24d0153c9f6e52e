//! A position as an SVG diagram in the style of printed boards: the grid with the river
//! (楚河 汉界), palace diagonals, the cannon and soldier point marks, file numbers for both
//! sides (red 九..一 below, black 1..9 above), pieces as discs with their Chinese
//! characters, and optional arrows and marked points. Text stays text; the fonts named are
//! common CJK fonts with the generic `serif` last, so any browser shows it as it is. Every
//! point carries a transparent target with `data-square`, for pages that take clicks.

use std::fmt::Write as _;

use crate::game::moves::Move;
use crate::game::piece::Color;
use crate::game::position::Position;
use crate::game::square::Square;

/// What to draw besides the position.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Black at the bottom.
    pub flip: bool,
    /// Arrows to draw, one per move.
    pub arrows: Vec<Move>,
    /// Points to circle.
    pub marks: Vec<Square>,
    /// The last move played, its two points tinted under the pieces.
    pub last: Option<Move>,
    /// Red's file numbers as digits too (1..9 from red's right, as WXF counts them), for
    /// an English reader; Chinese numerals (一..九) otherwise.
    pub digits: bool,
}

const STEP: f64 = 56.0;
const MARGIN: f64 = 56.0;
const FONT: &str =
    "'Noto Serif CJK SC','Source Han Serif SC','Noto Sans CJK SC','SimSun','Songti SC',serif";

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The drawing coordinates of a point.
fn xy(s: Square, flip: bool) -> (f64, f64) {
    let (f, r) = (s.file().index() as f64, s.rank().index() as f64);
    let (col, row) = if flip { (8.0 - f, r) } else { (f, 9.0 - r) };
    (MARGIN + col * STEP, MARGIN + row * STEP)
}

fn sq(file: u8, rank: u8) -> Square {
    Square::new(rank * 9 + file).expect("on the board")
}

/// The small corner marks of a cannon or soldier point.
fn point_mark(out: &mut String, s: Square, flip: bool) {
    let (x, y) = xy(s, flip);
    let (g, l) = (4.0, 10.0);
    let file = s.file().index();
    for (dx, dy) in [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
        // no marks beyond the board's edge
        let left_edge = if flip { file == 8 } else { file == 0 };
        let right_edge = if flip { file == 0 } else { file == 8 };
        if (dx < 0.0 && left_edge) || (dx > 0.0 && right_edge) {
            continue;
        }
        let (cx, cy) = (x + dx * g, y + dy * g);
        let _ = writeln!(
            out,
            r##"<polyline class="mark" points="{},{} {},{} {},{}" fill="none" stroke="#5b3a1a" stroke-width="1.5"/>"##,
            cx + dx * l,
            cy,
            cx,
            cy,
            cx,
            cy + dy * l
        );
    }
}

/// A board coloured by a share per point, with a title and a legend.
#[derive(Clone, Debug)]
pub struct Heatmap {
    /// The share (0..=1) at each point (`Square::index`), `None` where nothing is counted.
    pub shares: Vec<Option<f64>>,
    /// The title above the board.
    pub title: String,
    /// What the colours mean, under the legend.
    pub caption: String,
    /// Black at the bottom.
    pub flip: bool,
}

const TITLE_BAND: f64 = 44.0;
const LEGEND_BAND: f64 = 78.0;

/// The colour of a share: pale for none, deep red for all.
fn heat_colour(share: f64) -> String {
    const STOPS: [(f64, [f64; 3]); 4] = [
        (0.0, [247.0, 241.0, 225.0]),
        (0.5, [244.0, 162.0, 97.0]),
        (0.8, [214.0, 40.0, 40.0]),
        (1.0, [106.0, 4.0, 15.0]),
    ];
    let x = share.clamp(0.0, 1.0);
    let i = STOPS
        .iter()
        .rposition(|&(at, _)| at <= x)
        .unwrap_or(0)
        .min(2);
    let ((a, ca), (b, cb)) = (STOPS[i], STOPS[i + 1]);
    let t = (x - a) / (b - a);
    let c: Vec<u8> = (0..3)
        .map(|k| (ca[k] + (cb[k] - ca[k]) * t).round() as u8)
        .collect();
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

/// A share as a whole percent, rounded down so that only a share of one reads 100.
fn percent_label(share: f64) -> String {
    ((share.clamp(0.0, 1.0) * 100.0).floor() as u32).to_string()
}

/// The SVG text of a heatmap: the board without pieces, each point coloured by its share
/// and labelled with it in percent.
pub fn heatmap(h: &Heatmap) -> String {
    let o = Options {
        flip: h.flip,
        ..Default::default()
    };
    let w = MARGIN * 2.0 + 8.0 * STEP;
    let board_h = MARGIN * 2.0 + 9.0 * STEP;
    let total = TITLE_BAND + board_h + LEGEND_BAND;
    // the colours span 0 to the largest share, rounded up to a tenth, for contrast
    let top_share = h.shares.iter().flatten().fold(0.0f64, |a, &b| a.max(b));
    let scale = ((top_share * 10.0).ceil() / 10.0).clamp(0.1, 1.0);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {total}" width="{w}" height="{total}" font-family="{FONT}">"#
    );
    let _ = writeln!(
        s,
        r##"<defs><linearGradient id="heat-scale">{}</linearGradient></defs>"##,
        (0..=10)
            .map(|i| format!(
                r#"<stop offset="{}%" stop-color="{}"/>"#,
                i * 10,
                heat_colour(i as f64 / 10.0)
            ))
            .collect::<String>()
    );
    let _ = writeln!(
        s,
        r##"<rect class="background" x="0" y="0" width="{w}" height="{total}" fill="#fbf6ea"/>"##
    );
    let _ = writeln!(
        s,
        r##"<text class="title" x="{}" y="{}" font-size="18" text-anchor="middle" fill="#3b2a1a">{}</text>"##,
        w / 2.0,
        TITLE_BAND * 0.7,
        escape(&h.title)
    );
    let _ = writeln!(s, r#"<g transform="translate(0,{TITLE_BAND})">"#);
    board(&mut s, &o, w, board_h);
    for square in Square::all() {
        let Some(share) = h.shares.get(square.index()).copied().flatten() else {
            continue;
        };
        let (x, y) = xy(square, h.flip);
        let size = STEP * 0.74;
        let level = share / scale;
        let text = if level < 0.55 { "#3b2a1a" } else { "#ffffff" };
        let _ = writeln!(
            s,
            r##"<g class="heat" data-square="{square}" data-share="{share:.4}"><rect x="{}" y="{}" width="{size}" height="{size}" rx="9" fill="{}" stroke="#5b3a1a" stroke-width="0.5"/><text x="{x}" y="{}" font-size="17" text-anchor="middle" fill="{text}" font-family="sans-serif">{}</text></g>"##,
            x - size / 2.0,
            y - size / 2.0,
            heat_colour(level),
            y + 6.0,
            percent_label(share)
        );
    }
    // the river's words again, over the tiles, with a halo of the board's colour
    river(&mut s, o.flip, true);
    s.push_str("</g>\n");
    // the legend: the scale from 0% to 100%, and what it means
    let top = TITLE_BAND + board_h;
    let (x0, x1) = (MARGIN, w - MARGIN);
    let _ = writeln!(
        s,
        r##"<rect class="legend" x="{x0}" y="{}" width="{}" height="14" fill="url(#heat-scale)" stroke="#5b3a1a" stroke-width="0.5"/>"##,
        top + 4.0,
        x1 - x0
    );
    for frac in [0.0, 0.5, 1.0] {
        let label = format!("{}%", (frac * scale * 100.0).round());
        let _ = writeln!(
            s,
            r##"<text class="legend-label" x="{}" y="{}" font-size="13" text-anchor="middle" fill="#3b2a1a" font-family="sans-serif">{label}</text>"##,
            x0 + (x1 - x0) * frac,
            top + 34.0
        );
    }
    let _ = writeln!(
        s,
        r##"<text class="caption" x="{}" y="{}" font-size="13" text-anchor="middle" fill="#3b2a1a">{}</text>"##,
        w / 2.0,
        top + 60.0,
        escape(&h.caption)
    );
    s.push_str("</svg>\n");
    s
}

/// The SVG text of a position.
pub fn diagram(pos: &Position, o: &Options) -> String {
    let w = MARGIN * 2.0 + 8.0 * STEP;
    let h = MARGIN * 2.0 + 9.0 * STEP;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" font-family="{FONT}">"#
    );
    let _ = writeln!(
        s,
        r##"<defs><marker id="arrowhead" viewBox="0 0 10 10" refX="7" refY="5" markerWidth="4" markerHeight="4" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#2e7d32" fill-opacity="0.6"/></marker></defs>"##
    );
    board(&mut s, o, w, h);
    pieces(&mut s, pos, o);
    s.push_str("</svg>\n");
    s
}

/// The empty board: background, grid, palaces, point marks, river and file numbers.
fn board(s: &mut String, o: &Options, w: f64, h: f64) {
    let _ = writeln!(
        s,
        r##"<rect class="board" x="0" y="0" width="{w}" height="{h}" fill="#f2d9a6"/>"##
    );
    let line = |s: &mut String, a: Square, b: Square, class: &str| {
        let ((x1, y1), (x2, y2)) = (xy(a, o.flip), xy(b, o.flip));
        let _ = writeln!(
            s,
            r##"<line class="{class}" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#5b3a1a" stroke-width="1.5"/>"##
        );
    };
    // ten ranks
    for r in 0..10 {
        line(s, sq(0, r), sq(8, r), "rank");
    }
    // nine files: the edges across the river, the others on each side of it
    for f in 0..9 {
        if f == 0 || f == 8 {
            line(s, sq(f, 0), sq(f, 9), "file");
        } else {
            line(s, sq(f, 0), sq(f, 4), "file");
            line(s, sq(f, 5), sq(f, 9), "file");
        }
    }
    // palace diagonals
    line(s, sq(3, 0), sq(5, 2), "palace");
    line(s, sq(5, 0), sq(3, 2), "palace");
    line(s, sq(3, 7), sq(5, 9), "palace");
    line(s, sq(5, 7), sq(3, 9), "palace");
    // the outer frame
    let _ = writeln!(
        s,
        r##"<rect class="frame" x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#5b3a1a" stroke-width="3"/>"##,
        MARGIN - 6.0,
        MARGIN - 6.0,
        8.0 * STEP + 12.0,
        9.0 * STEP + 12.0
    );
    // cannon and soldier points
    for (f, r) in [(1, 2), (7, 2), (1, 7), (7, 7)] {
        point_mark(s, sq(f, r), o.flip);
    }
    for f in [0, 2, 4, 6, 8] {
        point_mark(s, sq(f, 3), o.flip);
        point_mark(s, sq(f, 6), o.flip);
    }
    river(s, o.flip, false);
    // file numbers: red's from its right below, black's from its right above (as drawn)
    const RED: [&str; 9] = ["九", "八", "七", "六", "五", "四", "三", "二", "一"];
    for f in 0..9u8 {
        let (x, _) = xy(sq(f, 0), o.flip);
        let red = if o.digits {
            (9 - f).to_string()
        } else {
            RED[f as usize].to_string()
        };
        let red = red.as_str();
        let black = (f + 1).to_string();
        let (top, bottom) = if o.flip {
            (red, black.as_str())
        } else {
            (black.as_str(), red)
        };
        let _ = writeln!(
            s,
            r##"<text class="file-number" x="{x}" y="{}" font-size="16" text-anchor="middle" fill="#5b3a1a">{top}</text>"##,
            MARGIN * 0.45
        );
        let _ = writeln!(
            s,
            r##"<text class="file-number" x="{x}" y="{}" font-size="16" text-anchor="middle" fill="#5b3a1a">{bottom}</text>"##,
            h - MARGIN * 0.3
        );
    }
}

/// The river's words, 楚河 汉界; `halo` rings them in the board's colour, for drawing
/// over tiles.
fn river(s: &mut String, flip: bool, halo: bool) {
    let river_y = MARGIN + 4.5 * STEP;
    let (left, right) = if flip {
        ("汉 界", "楚 河")
    } else {
        ("楚 河", "汉 界")
    };
    let ring = if halo {
        r##" stroke="#f2d9a6" stroke-width="5" stroke-linejoin="round" paint-order="stroke""##
    } else {
        ""
    };
    for (x, text) in [(MARGIN + 2.0 * STEP, left), (MARGIN + 6.0 * STEP, right)] {
        let _ = writeln!(
            s,
            r##"<text class="river" x="{x}" y="{}" font-size="28" text-anchor="middle" fill="#5b3a1a"{ring}>{text}</text>"##,
            river_y + 10.0
        );
    }
}

/// Marked points, the pieces, arrows and the click targets.
fn pieces(s: &mut String, pos: &Position, o: &Options) {
    // the last move: both points tinted, beneath everything else on them
    if let Some(m) = o.last {
        for (point, class) in [(m.from(), "last-from"), (m.to(), "last-to")] {
            let (x, y) = xy(point, o.flip);
            let _ = writeln!(
                s,
                r##"<rect class="last {class}" data-square="{point}" x="{}" y="{}" width="{}" height="{}" rx="6" fill="#e8b84a" fill-opacity="0.55"/>"##,
                x - STEP * 0.47,
                y - STEP * 0.47,
                STEP * 0.94,
                STEP * 0.94
            );
        }
    }
    // marked points
    for &m in &o.marks {
        let (x, y) = xy(m, o.flip);
        let _ = writeln!(
            s,
            r##"<circle class="marked" data-square="{m}" cx="{x}" cy="{y}" r="{}" fill="none" stroke="#1565c0" stroke-width="4"/>"##,
            STEP * 0.46
        );
    }
    // pieces
    for (square, piece) in pos.pieces() {
        let (x, y) = xy(square, o.flip);
        let color = match piece.color {
            Color::Red => "#b71c1c",
            Color::Black => "#212121",
        };
        let _ = writeln!(
            s,
            r##"<g class="piece" data-square="{square}" data-piece="{}"><circle cx="{x}" cy="{y}" r="{}" fill="#fbefd5" stroke="{color}" stroke-width="2.5"/><circle cx="{x}" cy="{y}" r="{}" fill="none" stroke="{color}" stroke-width="1"/><text x="{x}" y="{}" font-size="30" text-anchor="middle" fill="{color}">{}</text></g>"##,
            piece.fen_char(),
            STEP * 0.42,
            STEP * 0.35,
            y + 10.5,
            escape(&piece.chinese().to_string())
        );
    }
    // arrows, above the pieces but translucent, so that the characters under them read
    for &m in &o.arrows {
        let ((x1, y1), (x2, y2)) = (xy(m.from(), o.flip), xy(m.to(), o.flip));
        // start at the piece's rim, so that its character stays readable
        let len = ((x2 - x1).powi(2) + (y2 - y1).powi(2)).sqrt().max(1.0);
        let start = (STEP * 0.42).min(len / 2.0);
        let (x1, y1) = (x1 + (x2 - x1) * start / len, y1 + (y2 - y1) * start / len);
        let _ = writeln!(
            s,
            r##"<line class="arrow" data-move="{m}" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#2e7d32" stroke-width="7" stroke-opacity="0.45" stroke-linecap="round" marker-end="url(#arrowhead)"/>"##
        );
    }
    // click targets, one a point
    for square in Square::all() {
        let (x, y) = xy(square, o.flip);
        let _ = writeln!(
            s,
            r#"<rect class="point" data-square="{square}" x="{}" y="{}" width="{STEP}" height="{STEP}" fill="transparent"/>"#,
            x - STEP / 2.0,
            y - STEP / 2.0
        );
    }
}
