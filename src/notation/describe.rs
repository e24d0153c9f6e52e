//! The common ground of WXF and Chinese notation: a [`Description`] says which piece moves
//! (kind and a selector: its file, or its place among like pieces on a file), which way
//! and how far. Descriptions are matched against the moves of a position.

use crate::game::moves::{Move, MoveList};
use crate::game::piece::{Color, Kind, Piece};
use crate::game::position::Position;
use crate::game::square::{Rank, Square};
use crate::notation::{Notation, Reason, parse_move_as, why_illegal};

/// Which way a piece moves, from the mover's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// 进, `+`
    Forward,
    /// 平, `.` or `=`
    Sideways,
    /// 退, `-`
    Backward,
}

/// Which of the mover's pieces of the named kind moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selector {
    /// The piece on this file (1..9 from the mover's right).
    File(u8),
    /// 前: the frontmost of two or more like pieces on one file.
    Front,
    /// 中: the middle one of three (or of five).
    Middle,
    /// 后: the rearmost of two or more like pieces on one file.
    Back,
    /// 一..五: the k-th from the front on its file; for soldiers standing in tandem on two
    /// files, the k-th counting the files from the mover's right, each from the front.
    Ordinal(u8),
    /// 前七 / `7+`: the front soldier on this file.
    FileFront(u8),
    /// 中七 / `73` (canju's WXF extension): the middle soldier of three on this file.
    FileMiddle(u8),
    /// 后七 / `7-`: the rear soldier on this file.
    FileBack(u8),
    /// WXF `+`: the front one of two or three, the second of four or five.
    WxfPlus,
    /// WXF `-`: the rear one of two or three, the second-last of four or five.
    WxfMinus,
    /// WXF `++`: the foremost of four or five soldiers.
    Foremost,
    /// WXF `--`: the rearmost of four or five soldiers.
    Rearmost,
    /// WXF `P3`: the soldier on file 3 when it stands there alone, otherwise the middle of
    /// three or five soldiers on a file.
    FileOrMiddle(u8),
}

/// A move as WXF and Chinese notation describe it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Description {
    /// The kind of piece; `None` when the selector names soldiers by file (前七, `7+`).
    pub kind: Option<Kind>,
    /// Which piece moves, when a file holds more than one.
    pub selector: Selector,
    /// How it moves: 进, 退 or 平.
    pub direction: Direction,
    /// Steps for a straight mover going forward or back; otherwise the destination file.
    pub number: u8,
}

/// Everything the notations can say about one move.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Facts {
    kind: Kind,
    /// The origin's file number for the mover (1..9 from its right).
    file: u8,
    /// Like pieces (same side, same kind) on the origin's file, and this one's place
    /// among them counted from the front (0 = frontmost).
    on_file: u8,
    place: u8,
    /// For soldiers when two or more files hold two or more of them: the place counted
    /// over those files from the mover's right, each file from the front (1-based).
    tandem_ordinal: Option<u8>,
    /// For soldiers: the mover has exactly one soldier on its file 3, which WXF `P3` then
    /// names (rather than the middle one of a tandem).
    lone_on_file_3: bool,
    direction: Direction,
    number: u8,
}

/// Ranks of like pieces on a file, from the mover's front to back.
fn like_on_file(pos: &Position, piece: Piece, sq: Square) -> Vec<Rank> {
    let mut ranks: Vec<Rank> = Rank::all()
        .filter(|&r| pos.piece_at(Square::from_coords(sq.file(), r)) == Some(piece))
        .collect();
    if piece.color == Color::Red {
        ranks.reverse();
    }
    ranks
}

/// How many like pieces stand on `sq`'s file, and how many of them stand in front of `sq`
/// (from the mover's side): [`like_on_file`]'s length and `sq`'s place in it, without a list.
fn count_on_file(pos: &Position, piece: Piece, sq: Square) -> (u8, u8) {
    let (mut count, mut ahead) = (0u8, 0u8);
    for r in Rank::all() {
        if pos.piece_at(Square::from_coords(sq.file(), r)) == Some(piece) {
            count += 1;
            let in_front = match piece.color {
                Color::Red => r.index() > sq.rank().index(),
                Color::Black => r.index() < sq.rank().index(),
            };
            ahead += u8::from(in_front);
        }
    }
    (count, ahead)
}

pub(crate) fn facts(pos: &Position, m: Move) -> Facts {
    let from = m.from();
    let piece = pos.piece_at(from).expect("a piece on the move's origin");
    let us = piece.color;
    let (on_file, place) = count_on_file(pos, piece, from);
    let dr = (m.to().rank().index() as i8 - from.rank().index() as i8) * us.forward();
    let direction = match dr.signum() {
        1 => Direction::Forward,
        -1 => Direction::Backward,
        _ => Direction::Sideways,
    };
    let number = if piece.kind.moves_straight() && direction != Direction::Sideways {
        dr.unsigned_abs()
    } else {
        m.to().file().number_for(us)
    };
    let tandem_ordinal = if piece.kind == Kind::Soldier {
        soldier_tandem_ordinal(pos, piece, from)
    } else {
        None
    };
    let lone_on_file_3 = piece.kind == Kind::Soldier
        && crate::game::square::File::from_number(us, 3)
            .and_then(|f| Some(Square::from_coords(f, Rank::new(0)?)))
            .is_some_and(|s| count_on_file(pos, piece, s).0 == 1);
    Facts {
        kind: piece.kind,
        lone_on_file_3,
        file: from.file().number_for(us),
        on_file,
        place,
        tandem_ordinal,
        direction,
        number,
    }
}

fn soldier_tandem_ordinal(pos: &Position, soldier: Piece, sq: Square) -> Option<u8> {
    let us = soldier.color;
    // the common case first, without lists: fewer than two files hold two soldiers
    let doubled = (0..9)
        .filter_map(crate::game::square::File::new)
        .filter(|&f| {
            Rank::new(0)
                .is_some_and(|r| count_on_file(pos, soldier, Square::from_coords(f, r)).0 >= 2)
        })
        .count();
    if doubled < 2 {
        return None;
    }
    let mut files: Vec<(u8, Vec<Rank>)> = (1..=9)
        .filter_map(|n| {
            let file = crate::game::square::File::from_number(us, n)?;
            let ranks = like_on_file(pos, soldier, Square::from_coords(file, Rank::new(0)?));
            (ranks.len() >= 2).then_some((n, ranks))
        })
        .collect();
    if files.len() < 2 {
        return None;
    }
    files.sort_by_key(|(n, _)| *n);
    let mut k = 0u8;
    for (n, ranks) in files {
        for r in ranks {
            k += 1;
            if n == sq.file().number_for(us) && r == sq.rank() {
                return Some(k);
            }
        }
    }
    None
}

impl Selector {
    fn matches(self, f: &Facts) -> bool {
        let (n, i) = (f.on_file, f.place);
        let front = n >= 2 && i == 0;
        let back = n >= 2 && i + 1 == n;
        let middle = (n == 3 && i == 1) || (n == 5 && i == 2);
        match self {
            Selector::File(d) => f.file == d,
            Selector::Front => front,
            Selector::Middle => middle,
            Selector::Back => back,
            Selector::Ordinal(k) => match f.tandem_ordinal {
                Some(o) => o == k,
                None => n >= 2 && i + 1 == k,
            },
            Selector::FileFront(d) => f.file == d && front,
            Selector::FileMiddle(d) => f.file == d && middle,
            Selector::FileBack(d) => f.file == d && back,
            Selector::WxfPlus => n >= 2 && i == if n <= 3 { 0 } else { 1 },
            Selector::WxfMinus => n >= 2 && i + if n <= 3 { 1 } else { 2 } == n,
            Selector::Foremost => n >= 4 && i == 0,
            Selector::Rearmost => n >= 4 && i + 1 == n,
            Selector::FileOrMiddle(d) => {
                if f.lone_on_file_3 {
                    f.file == d
                } else {
                    middle
                }
            }
        }
    }
}

impl Description {
    fn selects(&self, f: &Facts) -> bool {
        let kind_ok = match self.kind {
            Some(k) => k == f.kind,
            None => f.kind == Kind::Soldier,
        };
        kind_ok && self.selector.matches(f)
    }

    fn matches(&self, f: &Facts) -> bool {
        self.selects(f) && self.direction == f.direction && self.number == f.number
    }
}

/// Finds the one legal move a description stands for.
pub(crate) fn resolve(pos: &Position, desc: &Description) -> Result<Move, Reason> {
    let mut pseudo = MoveList::new();
    pos.pseudo_moves(&mut pseudo);
    let kind = desc.kind.unwrap_or(Kind::Soldier);
    let matching: Vec<Move> = pseudo
        .iter()
        .copied()
        // the piece's kind first: a cheap test that spares most moves their facts
        .filter(|&m| pos.piece_at(m.from()).is_some_and(|p| p.kind == kind))
        .filter(|&m| desc.matches(&facts(pos, m)))
        .collect();
    if matching.is_empty() {
        return Err(no_match(pos, desc));
    }
    let legal: Vec<Move> = matching
        .iter()
        .copied()
        .filter(|&m| pos.is_legal_pseudo(m))
        .collect();
    match legal.len() {
        1 => Ok(legal[0]),
        0 => Err(Reason::Illegal(why_illegal(pos, matching[0]))),
        _ => Err(Reason::Ambiguous(
            legal.iter().map(|m| m.to_string()).collect(),
        )),
    }
}

fn no_match(pos: &Position, desc: &Description) -> Reason {
    let us = pos.turn();
    let kind = desc.kind.unwrap_or(Kind::Soldier);
    // Is there a piece the selector picks at all (moving anywhere by the piece rules)?
    let selected = pos.pieces().any(|(sq, p)| {
        p.color == us && p.kind == kind && {
            let probe = Move::new(sq, sq);
            desc.selects(&facts(pos, probe))
        }
    });
    let which = match desc.selector {
        Selector::File(d) | Selector::FileOrMiddle(d) => format!("on file {d}"),
        Selector::Front | Selector::WxfPlus | Selector::Foremost => "in front".to_string(),
        Selector::Back | Selector::WxfMinus | Selector::Rearmost => "at the back".to_string(),
        Selector::Middle => "in the middle".to_string(),
        Selector::Ordinal(k) => format!("number {k} from the front"),
        Selector::FileFront(d) => format!("in front on file {d}"),
        Selector::FileMiddle(d) => format!("in the middle on file {d}"),
        Selector::FileBack(d) => format!("at the back on file {d}"),
    };
    if selected {
        Reason::Illegal(format!("the {us} {} {which} has no such move", kind.name()))
    } else {
        Reason::NoSuchPiece(format!("{us} has no {} {which}", kind.name()))
    }
}

/// The descriptions of a move, most preferred first, for one notation.
fn candidates(f: &Facts, notation: Notation) -> Vec<Description> {
    let (n, i) = (f.on_file, f.place);
    let plain = Selector::File(f.file);
    let mut sels: Vec<Selector> = Vec::new();
    let alone = n <= 1 || matches!(f.kind, Kind::Advisor | Kind::Elephant);
    match notation {
        Notation::Chinese => {
            if alone {
                sels.push(plain);
            } else if let Some(o) = f.tandem_ordinal {
                sels.push(Selector::Ordinal(o));
            } else {
                match (n, i) {
                    (2, 0) | (3, 0) => sels.push(Selector::Front),
                    (2, 1) | (3, 2) => sels.push(Selector::Back),
                    (3, 1) => sels.push(Selector::Middle),
                    _ => sels.push(Selector::Ordinal(i + 1)),
                }
            }
            sels.extend([
                plain,
                Selector::FileFront(f.file),
                Selector::FileMiddle(f.file),
                Selector::FileBack(f.file),
                Selector::Ordinal(i + 1),
            ]);
        }
        Notation::Wxf => {
            if alone {
                sels.push(plain);
            } else if f.tandem_ordinal.is_some() {
                sels.extend([
                    Selector::FileFront(f.file),
                    Selector::FileBack(f.file),
                    Selector::FileOrMiddle(3),
                    Selector::FileMiddle(f.file),
                ]);
            } else {
                sels.extend([
                    Selector::Foremost,
                    Selector::WxfPlus,
                    Selector::FileOrMiddle(3),
                    Selector::WxfMinus,
                    Selector::Rearmost,
                ]);
            }
            sels.extend([
                plain,
                Selector::FileFront(f.file),
                Selector::FileMiddle(f.file),
                Selector::FileBack(f.file),
            ]);
        }
        Notation::Iccs => {}
    }
    sels.into_iter()
        .filter(|s| s.matches(f))
        .map(|selector| Description {
            kind: match selector {
                Selector::FileFront(_) | Selector::FileMiddle(_) | Selector::FileBack(_) => None,
                _ => Some(f.kind),
            },
            selector,
            direction: f.direction,
            number: f.number,
        })
        .collect()
}

/// Writes a move in the first preferred form that no other legal move matches, which
/// therefore reads back to exactly this move (the property tests read every move written
/// back; debug builds check each one here too). `legal` holds every legal move of `pos`
/// with its facts.
pub(crate) fn write_unique(
    pos: &Position,
    legal: &[(Move, Facts)],
    m: Move,
    write: impl Fn(&Description) -> String,
    notation: Notation,
) -> String {
    let Some(&(_, f)) = legal.iter().find(|(x, _)| *x == m) else {
        // not a legal move: ICCS is exact
        return m.to_string();
    };
    for d in candidates(&f, notation) {
        let mut matching = legal.iter().filter(|(_, g)| d.matches(g));
        if matching.next().is_some_and(|(x, _)| *x == m) && matching.next().is_none() {
            let text = write(&d);
            debug_assert_eq!(parse_move_as(pos, &text, notation), Ok(m), "{text}");
            return text;
        }
    }
    // Not reachable for legal moves (the property tests check every one); ICCS is exact.
    m.to_string()
}
