//! Attacks, check, legal moves, game end, and the non-capturing un-moves that the
//! retrograde solver walks backwards.

use crate::game::attacks::{
    ADVISOR_REACH, ADVISOR_STEPS, DIR_STEP, ELEPHANT_REACH, ELEPHANT_STEPS, GENERAL_REACH,
    GENERAL_STEPS, HORSE_ATTACKS, HORSE_REACH, HORSE_SOURCES, HORSE_STEPS, NONE, RAY_LEN, RAYS,
    SOLDIER_REACH,
};
use crate::game::moves::{Move, MoveList};
use crate::game::piece::{Color, Kind, Piece};
use crate::game::position::{Position, point_bit};
use crate::game::square::Square;

/// How a game stands when the side to move has no legal move: it has lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameEnd {
    /// In check with no legal move (将死).
    /// The side to move is in check and has no move.
    Checkmate {
        /// The side mated.
        loser: Color,
    },
    /// Not in check, but no legal move (困毙): also a loss.
    /// The side to move is not in check and has no move (困毙): it loses too.
    Stalemate {
        /// The side without a move.
        loser: Color,
    },
}

impl GameEnd {
    /// The side that lost.
    pub fn loser(self) -> Color {
        match self {
            GameEnd::Checkmate { loser } | GameEnd::Stalemate { loser } => loser,
        }
    }
}

/// Per-square masks for [`Legality`], built at compile time: the file and rank of a
/// square, its orthogonal neighbours, and its horse zone (the diagonal neighbours, which
/// are the legs of horse attacks on it, and the points a horse attacks it from).
struct Masks {
    lines: [u128; 90],
    file: [u128; 90],
    neighbours: [u128; 90],
    horse_zone: [u128; 90],
    palaces: u128,
}

static MASKS: Masks = {
    let mut m = Masks {
        lines: [0; 90],
        file: [0; 90],
        neighbours: [0; 90],
        horse_zone: [0; 90],
        palaces: 0,
    };
    let mut g = 0;
    while g < 90 {
        let (gf, gr) = (g % 9, g / 9);
        let mut s = 0;
        while s < 90 {
            let (sf, sr) = (s % 9, s / 9);
            if sf == gf {
                m.file[g] |= 1 << s;
            }
            if sf == gf || sr == gr {
                m.lines[g] |= 1 << s;
            }
            if (sf == gf && (sr + 1 == gr || gr + 1 == sr))
                || (sr == gr && (sf + 1 == gf || gf + 1 == sf))
            {
                m.neighbours[g] |= 1 << s;
            }
            s += 1;
        }
        let mut i = 0;
        while i < 8 {
            let (from, leg) = HORSE_SOURCES[g][i];
            if from != NONE {
                m.horse_zone[g] |= 1 << from;
                m.horse_zone[g] |= 1 << leg;
            }
            i += 1;
        }
        if gf >= 3 && gf <= 5 && (gr <= 2 || gr >= 7) {
            m.palaces |= 1 << g;
        }
        g += 1;
    }
    m
};

/// The points strictly between two points of one file or one rank: a run of bits along a
/// rank, every ninth bit along a file.
#[inline(always)]
pub(crate) fn between(a: usize, b: usize) -> u128 {
    let (lo, hi) = (a.min(b), a.max(b));
    let run = ((1u128 << hi) - 1) ^ ((1u128 << (lo + 1)) - 1);
    if a / 9 == b / 9 {
        run
    } else {
        run & MASKS.file[a]
    }
}

/// The points whose contents can decide whether a general on `general` is attacked, by
/// any kind of piece or by the other general: its file and rank, its horse zone and the
/// point itself. A change elsewhere on the board never gives or takes away a check on it.
pub fn sensitive_points_of(general: Square) -> u128 {
    let g = general.index();
    point_bit(g) | MASKS.lines[g] | MASKS.horse_zone[g]
}

/// The file and rank of a point (the point included).
#[inline]
pub(crate) fn lines_of(s: usize) -> u128 {
    MASKS.lines[s]
}

/// The horse zone of a point: where horses attack it from and the legs of those attacks.
#[inline]
pub(crate) fn horse_zone_of(s: usize) -> u128 {
    MASKS.horse_zone[s]
}

/// Facts about a position computed once, for testing many of its moves or un-moves
/// quickly: a move that touches none of the general's sensitive points while the general
/// is not in check is legal without further work.
#[derive(Clone, Copy, Debug)]
pub struct Legality {
    in_check: bool,
    sensitive: u128,
    kinds: Attackers,
}

impl Legality {
    /// Whether a move or un-move between these points is surely harmless to the general.
    #[inline(always)]
    fn harmless(&self, m: Move) -> bool {
        let touched = point_bit(m.from().index()) | point_bit(m.to().index());
        !self.in_check && self.sensitive & touched == 0
    }

    /// The points a move must not touch to be legal without a closer look (while the
    /// general is not in check): the general's sensitive points.
    pub fn sensitive_points(&self) -> u128 {
        self.sensitive
    }

    /// The points among `targets` that a move of the piece on `from` surely may go to:
    /// all that are off the sensitive points when the piece is off them too and the general
    /// is not in check, none otherwise.
    #[inline(always)]
    fn surely_legal(&self, from: Square, targets: u128) -> u128 {
        if self.in_check || self.sensitive & point_bit(from.index()) != 0 {
            0
        } else {
            targets & !self.sensitive
        }
    }

    /// Whether a pseudo-legal move (from [`Position::pseudo_moves`]) is legal.
    #[inline(always)]
    pub fn move_is_legal(&self, pos: &Position, m: Move) -> bool {
        self.harmless(m) || pos.is_legal_pseudo_against(m, self.kinds)
    }
}

/// [`Legality`] for un-moves: an un-move by the side that just moved may put any of its
/// pieces back where it attacks the general of the side to move (a horse on its point of
/// attack, a soldier beside it, the other general on its file), so more points are
/// sensitive than for moves.
#[derive(Clone, Copy, Debug)]
pub struct UnmoveLegality(Legality);

impl UnmoveLegality {
    /// Whether an un-move (from [`Position::pseudo_unmoves`]) leads to a legal position.
    #[inline(always)]
    pub fn unmove_is_legal(&self, pos: &Position, u: Move) -> bool {
        self.0.harmless(u) || pos.is_legal_unmove_against(u, self.0.kinds)
    }
}

#[inline(always)]
fn sq(i: u8) -> Square {
    Square::new_unchecked(i)
}

#[inline(always)]
fn step(s: usize, dir: usize) -> usize {
    (s as isize + DIR_STEP[dir] as isize) as usize
}

/// Iterates the set bits of a 90-bit occupancy mask as squares.
#[inline(always)]
pub(crate) fn squares_of(mut mask: u128) -> impl Iterator<Item = Square> {
    std::iter::from_fn(move || {
        if mask == 0 {
            None
        } else {
            let i = mask.trailing_zeros() as u8;
            mask &= mask - 1;
            Some(sq(i))
        }
    })
}

impl Position {
    #[inline(always)]
    fn at(&self, i: usize) -> Option<Piece> {
        self.board[i]
    }

    #[inline(always)]
    fn is_empty_at(&self, i: usize) -> bool {
        self.board[i].is_none()
    }

    /// Whether the two generals stand on one file with nothing between them.
    pub fn generals_facing(&self) -> bool {
        let (r, b) = (self.generals[0], self.generals[1]);
        if r.file() != b.file() {
            return false;
        }
        let mut i = r.index() + 9;
        while i < b.index() {
            if !self.is_empty_at(i) {
                return false;
            }
            i += 9;
        }
        true
    }

    /// Whether `color`'s general is attacked or faces the other general on an open file.
    #[inline]
    pub fn in_check(&self, color: Color) -> bool {
        self.in_check_against(color, Attackers::ALL)
    }

    /// Every occupied point.
    #[inline(always)]
    pub(crate) fn occupancy(&self) -> u128 {
        self.occupied[0] | self.occupied[1]
    }

    /// Precomputes what [`Legality`] needs to test this position's moves.
    #[inline]
    pub fn legality(&self) -> Legality {
        self.legality_against(self.attacker_kinds())
    }

    /// The kinds of attacker the side not to move has.
    #[inline]
    fn attacker_kinds(&self) -> Attackers {
        self.attacker_kinds_of(!self.turn)
    }

    /// The kinds of attacker `color` has.
    #[inline]
    pub fn attacker_kinds_of(&self, color: Color) -> Attackers {
        let mut kinds = Attackers::NONE;
        for s in squares_of(self.occupied[color.index()]) {
            match self.board[s.index()].map(|p| p.kind) {
                Some(Kind::Chariot | Kind::Cannon) => kinds.sliders = true,
                Some(Kind::Horse) => kinds.horses = true,
                Some(Kind::Soldier) => kinds.soldiers = true,
                _ => {}
            }
        }
        kinds
    }

    /// [`Position::legality`] when the kinds of attacker the other side has are known
    /// (a table knows them from its material); `kinds` must include every kind present.
    #[inline]
    pub fn legality_against(&self, kinds: Attackers) -> Legality {
        self.legality_knowing(kinds, self.in_check_against(self.turn, kinds))
    }

    /// [`Position::legality_against`] when whether the side to move is in check is known
    /// too (`in_check` must be [`Position::in_check_against`] of the side to move).
    ///
    /// A move of the side to move that is not the general's, while its general is not in
    /// check, can only expose the general: it leaves a file or rank of a chariot or cannon,
    /// or the file between the generals, or the leg of a horse that stands where it would
    /// attack the general; or it becomes a cannon's screen. It never lets a soldier attack.
    /// So the sensitive points are the general, the half-lines from it where one move can
    /// open a line (see [`Position::open_able_lines`]), and the legs of the horses actually
    /// aimed at it.
    #[inline]
    pub fn legality_knowing(&self, kinds: Attackers, in_check: bool) -> Legality {
        debug_assert_eq!(in_check, self.in_check_against(self.turn, kinds));
        let us = self.turn;
        let g = self.generals[us.index()].index();
        let mut sensitive = point_bit(g);
        if in_check {
            // every move is looked at closely: the points do not matter
        } else if kinds.sliders {
            sensitive |= self.open_able_lines(g, us);
        } else {
            let eg = self.generals[(!us).index()].index();
            if eg % 9 == g % 9 {
                let between = between(g, eg);
                // with two or more pieces between, one move leaves one at least
                if (between & self.occupancy()).count_ones() == 1 {
                    sensitive |= between;
                }
            }
        }
        if kinds.horses {
            let horse = Some(Piece::new(!us, Kind::Horse));
            for from in squares_of(HORSE_ATTACKS.origins[g] & self.occupied[(!us).index()]) {
                if self.board[from.index()] == horse {
                    sensitive |= point_bit(HORSE_ATTACKS.leg[g][from.index()] as usize);
                }
            }
        }
        Legality {
            in_check,
            sensitive,
            kinds,
        }
    }

    /// The half-lines from `us`'s general on `g` (not in check) along which one move of
    /// `us` other than the general's can open an attack on it. A move changes the number of
    /// pieces between the general and a piece on one of its half-lines by one at most (it
    /// leaves the line, or comes onto it, or takes a piece on it from off it, which changes
    /// nothing), and it never makes a piece of the other side. So only these can open:
    /// a chariot, or the other general on the file, behind exactly one piece (the pinned
    /// one leaves); a cannon with nothing between (a piece comes between and screens it);
    /// a cannon behind two pieces (one of them leaves). A chariot right beside the line's
    /// first point, or a cannon behind one screen, would be a check.
    #[inline]
    fn open_able_lines(&self, g: usize, us: Color) -> u128 {
        let occupied = self.occupancy();
        let mut lines = 0;
        for (dir, &ray) in crate::game::attacks::RAYS[g].iter().enumerate() {
            let mut blockers = ray & occupied;
            let mut k = 0;
            while blockers != 0 && k < 3 {
                // north and east count up from the general, south and west down
                let p = if dir % 2 == 0 {
                    blockers.trailing_zeros() as usize
                } else {
                    127 - blockers.leading_zeros() as usize
                };
                blockers ^= point_bit(p);
                if let Some(piece) = self.board[p]
                    && piece.color != us
                    && matches!(
                        (piece.kind, k),
                        (Kind::Cannon, 0 | 2) | (Kind::Chariot | Kind::General, 1)
                    )
                {
                    lines |= ray;
                    break;
                }
                k += 1;
            }
        }
        lines
    }

    /// What tests this position's un-moves (see [`UnmoveLegality`]); `kinds` must include
    /// every kind of attacker the side not to move has.
    #[inline]
    pub fn unmove_legality_against(&self, kinds: Attackers) -> UnmoveLegality {
        let in_check = self.in_check_against(self.turn, kinds);
        let us = self.turn;
        let g = self.generals[us.index()].index();
        let Attackers {
            sliders,
            horses,
            soldiers,
        } = kinds;
        // Always: the general itself and the palace points of its file (where the other
        // general may come back to face it).
        let mut sensitive = point_bit(g) | (MASKS.file[g] & MASKS.palaces);
        if sliders {
            sensitive |= MASKS.lines[g];
        } else {
            let eg = self.generals[(!us).index()].index();
            if eg % 9 == g % 9 {
                sensitive |= between(g, eg);
            }
            if soldiers {
                sensitive |= MASKS.neighbours[g];
            }
        }
        if horses {
            sensitive |= MASKS.horse_zone[g];
        }
        UnmoveLegality(Legality {
            in_check,
            sensitive,
            kinds,
        })
    }

    /// [`Position::in_check`] when the kinds of attacker the other side has are known;
    /// `kinds` must include every kind present.
    #[inline]
    pub fn in_check_against(&self, color: Color, kinds: Attackers) -> bool {
        let board = Board {
            occupied: self.occupancy(),
            enemy_general: self.generals[(!color).index()].index(),
            at: |i| self.board[i],
        };
        general_attacked(
            self.generals[color.index()].index(),
            !color,
            kinds,
            !0,
            board,
        )
    }

    /// Whether the side to move is in check.
    pub fn is_check(&self) -> bool {
        self.in_check(self.turn)
    }

    /// Adds the pseudo-legal moves of the side to move (every move by the piece rules,
    /// without asking whether it leaves the mover's general in check).
    pub fn pseudo_moves(&self, list: &mut MoveList) {
        for from in squares_of(self.occupied[self.turn.index()]) {
            self.pseudo_moves_from(from, list);
        }
    }

    /// Adds the pseudo-legal moves of the piece on `from`, which must belong to the side
    /// to move.
    #[inline(always)]
    pub fn pseudo_moves_from(&self, from: Square, list: &mut MoveList) {
        let us = self.turn;
        {
            let f = from.index();
            let piece = self.board[f].expect("a piece of the side to move");
            let own = |i: usize| matches!(self.at(i), Some(p) if p.color == us);
            match piece.kind {
                Kind::General | Kind::Advisor => {
                    let steps = if piece.kind == Kind::General {
                        &GENERAL_STEPS[f]
                    } else {
                        &ADVISOR_STEPS[f]
                    };
                    for &to in steps {
                        if to == NONE {
                            break;
                        }
                        if !own(to as usize) {
                            list.push(Move::new(from, sq(to)));
                        }
                    }
                }
                Kind::Elephant => {
                    for &(to, eye) in &ELEPHANT_STEPS[f] {
                        if to == NONE {
                            break;
                        }
                        if self.is_empty_at(eye as usize) && !own(to as usize) {
                            list.push(Move::new(from, sq(to)));
                        }
                    }
                }
                Kind::Horse => {
                    for &(to, leg) in &HORSE_STEPS[f] {
                        if to == NONE {
                            break;
                        }
                        if self.is_empty_at(leg as usize) && !own(to as usize) {
                            list.push(Move::new(from, sq(to)));
                        }
                    }
                }
                Kind::Chariot => {
                    for (dir, &len) in RAY_LEN[f].iter().enumerate() {
                        let mut s = f;
                        for _ in 0..len {
                            s = step(s, dir);
                            match self.at(s) {
                                None => list.push(Move::new(from, sq(s as u8))),
                                Some(p) => {
                                    if p.color != us {
                                        list.push(Move::new(from, sq(s as u8)));
                                    }
                                    break;
                                }
                            }
                        }
                    }
                }
                Kind::Cannon => {
                    for (dir, &len) in RAY_LEN[f].iter().enumerate() {
                        let mut s = f;
                        let mut n = len;
                        while n > 0 {
                            n -= 1;
                            s = step(s, dir);
                            if self.is_empty_at(s) {
                                list.push(Move::new(from, sq(s as u8)));
                            } else {
                                break;
                            }
                        }
                        // jump the screen to the next piece
                        while n > 0 {
                            n -= 1;
                            s = step(s, dir);
                            if let Some(p) = self.at(s) {
                                if p.color != us {
                                    list.push(Move::new(from, sq(s as u8)));
                                }
                                break;
                            }
                        }
                    }
                }
                Kind::Soldier => {
                    if let Some(to) = from.offset(0, us.forward())
                        && !own(to.index())
                    {
                        list.push(Move::new(from, to));
                    }
                    if !from.on_own_half(us) {
                        for df in [-1, 1] {
                            if let Some(to) = from.offset(df, 0)
                                && !own(to.index())
                            {
                                list.push(Move::new(from, to));
                            }
                        }
                    }
                }
            }
        }
    }

    /// Whether `m` is a move of the side to move by the piece rules: what
    /// [`Position::pseudo_moves`] would list, decided without generating the list (for a
    /// remembered move, such as a killer, tried before the others are generated).
    pub fn is_pseudo_legal(&self, m: Move) -> bool {
        let us = self.turn;
        let (f, t) = (m.from().index(), m.to().index());
        let Some(piece) = self.at(f) else {
            return false;
        };
        if piece.color != us || f == t || matches!(self.at(t), Some(p) if p.color == us) {
            return false;
        }
        let t8 = t as u8;
        match piece.kind {
            Kind::General => GENERAL_STEPS[f].contains(&t8),
            Kind::Advisor => ADVISOR_STEPS[f].contains(&t8),
            Kind::Elephant => ELEPHANT_STEPS[f]
                .iter()
                .any(|&(to, eye)| to == t8 && self.is_empty_at(eye as usize)),
            Kind::Horse => HORSE_STEPS[f]
                .iter()
                .any(|&(to, leg)| to == t8 && self.is_empty_at(leg as usize)),
            Kind::Chariot | Kind::Cannon => {
                let dir = if f % 9 == t % 9 {
                    if t > f { 0 } else { 1 }
                } else if f / 9 == t / 9 {
                    if t > f { 2 } else { 3 }
                } else {
                    return false;
                };
                let mut between = 0;
                let mut s = step(f, dir);
                while s != t {
                    between += usize::from(!self.is_empty_at(s));
                    s = step(s, dir);
                }
                match piece.kind {
                    Kind::Chariot => between == 0,
                    _ if self.at(t).is_some() => between == 1,
                    _ => between == 0,
                }
            }
            Kind::Soldier => {
                m.from().offset(0, us.forward()) == Some(m.to())
                    || (!m.from().on_own_half(us)
                        && (m.from().offset(-1, 0) == Some(m.to())
                            || m.from().offset(1, 0) == Some(m.to())))
            }
        }
    }

    /// Whether a pseudo-legal move of the side to move leaves its general safe.
    #[inline]
    pub fn is_legal_pseudo(&self, m: Move) -> bool {
        self.is_legal_pseudo_against(m, Attackers::ALL)
    }

    /// [`Position::is_legal_pseudo`] when the kinds of attacker the other side has are
    /// known (`kinds` must include every kind present).
    #[inline(always)]
    pub(crate) fn is_legal_pseudo_against(&self, m: Move, kinds: Attackers) -> bool {
        !self.attacked_after(m, self.turn, kinds, !0)
    }

    /// Whether `color`'s general is attacked (or faces the other general) once the side to
    /// move has played the pseudo-legal move `m`, on the board as it would stand, without
    /// changing it.
    /// Only the half-lines from the general that hold a point of `rays` are looked at.
    #[inline(always)]
    fn attacked_after(&self, m: Move, color: Color, kinds: Attackers, rays: u128) -> bool {
        let (from, to) = (m.from().index(), m.to().index());
        let moved = self.board[from];
        let general_of = |c: Color| {
            if moved == Some(Piece::new(c, Kind::General)) {
                to
            } else {
                self.generals[c.index()].index()
            }
        };
        let board = Board {
            occupied: (self.occupancy() & !point_bit(from)) | point_bit(to),
            enemy_general: general_of(!color),
            at: |i| {
                if i == to {
                    moved
                } else if i == from {
                    None
                } else {
                    self.board[i]
                }
            },
        };
        general_attacked(general_of(color), !color, kinds, rays, board)
    }

    /// Adds the pseudo-legal moves of the chariot or cannon of the side to move on `from`
    /// that end on one of `targets`, found without walking its lines.
    #[inline]
    pub(crate) fn slider_moves_to(&self, from: Square, targets: u128, list: &mut MoveList) {
        let f = from.index();
        let cannon = matches!(self.board[f], Some(p) if p.kind == Kind::Cannon);
        let occupied = self.occupancy();
        let mut ends = targets & MASKS.lines[f] & !self.occupied[self.turn.index()];
        while ends != 0 {
            let to = ends.trailing_zeros() as usize;
            ends &= ends - 1;
            let screens = (between(f, to) & occupied).count_ones();
            // a chariot needs an open line; a cannon too, or exactly one screen to capture
            let capture = occupied >> to & 1 == 1;
            if screens == u32::from(cannon && capture) {
                list.push(Move::new(from, sq(to as u8)));
            }
        }
    }

    /// Whether, once the side to move has played the pseudo-legal move `m`, the other
    /// side's general could step from its point to `to` without being attacked there (or
    /// facing the other general). The step itself must be one the general has now.
    /// (Not folded into [`Position::attacked_after`] with an optional step: the extra tests
    /// in its lookup cost perft 2–3%.)
    pub(crate) fn general_step_safe_after(&self, m: Move, to: Square) -> bool {
        let (from, dest) = (m.from().index(), m.to().index());
        let moved = self.board[from];
        let us = self.turn;
        let g = self.generals[(!us).index()].index();
        let s = to.index();
        let general = self.board[g];
        let ours = if moved.map(|p| p.kind) == Some(Kind::General) {
            dest
        } else {
            self.generals[us.index()].index()
        };
        let occupied =
            (self.occupancy() & !point_bit(from) & !point_bit(g)) | point_bit(dest) | point_bit(s);
        let board = Board {
            occupied,
            enemy_general: ours,
            at: |i| {
                if i == s {
                    general
                } else if i == dest {
                    moved
                } else if i == from || i == g {
                    None
                } else {
                    self.board[i]
                }
            },
        };
        !general_attacked(s, us, Attackers::ALL, !0, board)
    }

    /// Whether a pseudo-legal move of the side to move attacks the other general (or makes
    /// the generals face), worked out on the board as it stands after the move without
    /// changing it.
    ///
    /// The other general must not be attacked before the move (as in every legal position):
    /// then an attack after it runs through a point the move changes, so only the
    /// half-lines and horse zone holding such a point, and a moving soldier, are looked at.
    #[inline]
    pub fn gives_check(&self, m: Move) -> bool {
        let g = self.generals[(!self.turn).index()].index();
        let touched = point_bit(m.from().index()) | point_bit(m.to().index());
        let kinds = Attackers {
            sliders: touched & MASKS.lines[g] != 0,
            horses: touched & MASKS.horse_zone[g] != 0,
            soldiers: matches!(self.board[m.from().index()], Some(p) if p.kind == Kind::Soldier),
        };
        self.attacked_after(m, !self.turn, kinds, touched)
    }

    /// Whether the predecessor that an un-move from [`Position::pseudo_unmoves`] leads to
    /// is legal: the side to move here must not be in check there.
    #[inline]
    pub fn is_legal_unmove(&self, u: Move) -> bool {
        self.is_legal_unmove_against(u, Attackers::ALL)
    }

    #[inline(always)]
    fn is_legal_unmove_against(&self, u: Move, kinds: Attackers) -> bool {
        let (from, to) = (u.from().index(), u.to().index());
        let moved = self.board[to];
        let us = self.turn;
        let enemy_general = if moved.map(|p| p.kind) == Some(Kind::General) {
            from
        } else {
            self.generals[(!us).index()].index()
        };
        let board = Board {
            occupied: (self.occupancy() & !point_bit(to)) | point_bit(from),
            enemy_general,
            at: |i| {
                if i == from {
                    moved
                } else if i == to {
                    None
                } else {
                    self.board[i]
                }
            },
        };
        !general_attacked(self.generals[us.index()].index(), !us, kinds, !0, board)
    }

    /// The legal moves of the side to move.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.pseudo_moves(&mut list);
        let legality = self.legality();
        list.retain(|m| legality.move_is_legal(self, m));
        list
    }

    /// Whether `m` is a legal move here.
    pub fn is_legal(&self, m: Move) -> bool {
        let mut list = MoveList::new();
        self.pseudo_moves(&mut list);
        list.contains(&m) && self.is_legal_pseudo(m)
    }

    /// The number of legal moves of the side to move, counted from the targets' bits
    /// without listing the moves (as [`Position::count_legal_quiet_moves_against`] does).
    pub fn count_legal_moves(&self) -> usize {
        self.count_legal_moves_with(&self.legality())
    }

    /// [`Position::count_legal_moves`] with this position's [`Legality`].
    #[inline]
    pub fn count_legal_moves_with(&self, legality: &Legality) -> usize {
        let occupied = self.occupancy();
        squares_of(self.occupied[self.turn.index()])
            .map(|from| {
                let (quiet, captures) = self.targets(from.index(), occupied);
                let targets = quiet | captures;
                let sure = legality.surely_legal(from, targets);
                let checked = squares_of(targets & !sure)
                    .filter(|&to| self.is_legal_pseudo_against(Move::new(from, to), legality.kinds))
                    .count();
                sure.count_ones() as usize + checked
            })
            .sum()
    }

    /// The number of legal moves of the side to move that capture nothing, counted from
    /// the targets' bits without listing the moves: a move of a piece off the general's
    /// sensitive points to a point off them is legal while the general is not in check
    /// (see [`Legality`]), so only the others are looked at one by one. `kinds` must
    /// include every kind of attacker the other side has.
    pub fn count_legal_quiet_moves_against(&self, kinds: Attackers) -> u32 {
        let legality = self.legality_against(kinds);
        let occupied = self.occupancy();
        squares_of(self.occupied[self.turn.index()])
            .map(|from| {
                let (quiet, _) = self.targets(from.index(), occupied);
                let sure = legality.surely_legal(from, quiet);
                let checked = squares_of(quiet & !sure)
                    .filter(|&to| self.is_legal_pseudo_against(Move::new(from, to), kinds))
                    .count();
                sure.count_ones() + checked as u32
            })
            .sum()
    }

    /// Whether the side to move has a legal move that captures nothing (`legality` is this
    /// position's).
    pub fn has_legal_quiet_move(&self, legality: &Legality) -> bool {
        let occupied = self.occupancy();
        squares_of(self.occupied[self.turn.index()]).any(|from| {
            self.may_go_to_one_of(from, self.targets(from.index(), occupied).0, legality)
        })
    }

    /// Whether the piece on `from` has a legal move to one of `targets` (points it may
    /// move to by the piece rules): at once when one is surely legal, else one by one.
    #[inline(always)]
    fn may_go_to_one_of(&self, from: Square, targets: u128, legality: &Legality) -> bool {
        let sure = legality.surely_legal(from, targets);
        sure != 0
            || squares_of(targets & !sure)
                .any(|to| self.is_legal_pseudo_against(Move::new(from, to), legality.kinds))
    }

    /// Adds the pseudo-legal captures of the side to move.
    pub fn pseudo_captures(&self, list: &mut MoveList) {
        let occupied = self.occupancy();
        for from in squares_of(self.occupied[self.turn.index()]) {
            let (_, captures) = self.targets(from.index(), occupied);
            for to in squares_of(captures) {
                list.push(Move::new(from, to));
            }
        }
    }

    /// The points the piece on `f` (of the side to move) may move to by the piece rules:
    /// the empty ones, and those holding a piece of the other side.
    #[inline(always)]
    pub(crate) fn targets(&self, f: usize, occupied: u128) -> (u128, u128) {
        let piece = self.board[f].expect("a piece of the side to move");
        let theirs = self.occupied[(!piece.color).index()];
        let empty = |i: u8| occupied & point_bit(i as usize) == 0;
        // the points a piece reaches, captures or not
        let reach = match piece.kind {
            Kind::General => GENERAL_REACH[f],
            Kind::Advisor => ADVISOR_REACH[f],
            Kind::Elephant | Kind::Horse => {
                let table = if piece.kind == Kind::Elephant {
                    &ELEPHANT_REACH
                } else {
                    &HORSE_REACH
                };
                // which of the points that can block its steps are empty
                let mut pattern = 0;
                for (k, &block) in table.blocks[f].iter().enumerate() {
                    if block == NONE {
                        break;
                    }
                    pattern |= usize::from(empty(block)) << k;
                }
                table.reach[f][pattern]
            }
            Kind::Chariot | Kind::Cannon => {
                // each half-line up to its first piece (the screen, for a cannon), then
                // the piece after the screen: north and east count up from `f`, south
                // and west down
                let cannon = piece.kind == Kind::Cannon;
                let (mut quiet, mut captures) = (0u128, 0u128);
                for (dir, &ray) in crate::game::attacks::RAYS[f].iter().enumerate() {
                    let up = dir % 2 == 0;
                    let nearest = |bits: u128| {
                        if up {
                            bits & bits.wrapping_neg()
                        } else {
                            1u128 << (127 - bits.leading_zeros())
                        }
                    };
                    // the points of the ray beyond a point of it
                    let beyond = |p: u128| {
                        if up {
                            ray & !((p << 1) - 1)
                        } else {
                            ray & (p - 1)
                        }
                    };
                    let blockers = ray & occupied;
                    if blockers == 0 {
                        quiet |= ray;
                        continue;
                    }
                    let first = nearest(blockers);
                    quiet |= ray & !first & !beyond(first);
                    if !cannon {
                        captures |= first & theirs;
                    } else {
                        let rest = blockers & beyond(first);
                        if rest != 0 {
                            captures |= nearest(rest) & theirs;
                        }
                    }
                }
                return (quiet, captures);
            }
            Kind::Soldier => SOLDIER_REACH[piece.color.index()][f],
        };
        (reach & !occupied, reach & theirs)
    }

    /// Whether the side to move has any legal move.
    pub fn has_legal_move(&self) -> bool {
        self.has_legal_move_with(&self.legality())
    }

    /// [`Position::has_legal_move`] when whether the side to move is in check is known
    /// (`in_check` must be [`Position::is_check`]): after a move known to give check or
    /// not, the test for check is not made again.
    pub fn has_legal_move_knowing(&self, in_check: bool) -> bool {
        self.has_legal_move_against(self.attacker_kinds(), in_check)
    }

    /// [`Position::has_legal_move_knowing`] when the kinds of attacker the side not to move
    /// has are known too (`kinds` must include every kind present, see
    /// [`Position::attacker_kinds_of`]).
    pub fn has_legal_move_against(&self, kinds: Attackers, in_check: bool) -> bool {
        self.has_legal_move_with(&self.legality_knowing(kinds, in_check))
    }

    /// A legal move of the side to move, if it has one: the general's steps first, then
    /// the other pieces' in board order (`kinds` and `in_check` as for
    /// [`Position::has_legal_move_against`]).
    pub(crate) fn some_legal_move_against(&self, kinds: Attackers, in_check: bool) -> Option<Move> {
        let legality = self.legality_knowing(kinds, in_check);
        if let Some(m) = self.legal_general_step(&legality) {
            return Some(m);
        }
        let us = self.turn;
        let general = self.general(us);
        let occupied = self.occupancy();
        let others = self.occupied[us.index()] & !point_bit(general.index());
        squares_of(others).find_map(|from| {
            let (quiet, captures) = self.targets(from.index(), occupied);
            let targets = quiet | captures;
            let sure = legality.surely_legal(from, targets);
            squares_of(sure)
                .chain(squares_of(targets & !sure).filter(|&to| {
                    self.is_legal_pseudo_against(Move::new(from, to), legality.kinds)
                }))
                .next()
                .map(|to| Move::new(from, to))
        })
    }

    /// Whether the side to move has a legal move that `wanted` accepts, and whether it has
    /// a legal move at all: the moves are made one by one (the general's steps first, then
    /// the other pieces' in board order) and the search stops at the first one wanted,
    /// without listing the rest.
    pub(crate) fn legal_move_where(&self, mut wanted: impl FnMut(Move) -> bool) -> (bool, bool) {
        let legality = self.legality();
        let us = self.turn;
        let general = self.general(us);
        let mut any = false;
        for &to in &GENERAL_STEPS[general.index()] {
            if to == NONE {
                break;
            }
            let own = matches!(self.at(to as usize), Some(p) if p.color == us);
            let m = Move::new(general, sq(to));
            if !own && legality.move_is_legal(self, m) {
                any = true;
                if wanted(m) {
                    return (true, true);
                }
            }
        }
        let occupied = self.occupancy();
        let others = self.occupied[us.index()] & !point_bit(general.index());
        for from in squares_of(others) {
            let (quiet, captures) = self.targets(from.index(), occupied);
            let targets = quiet | captures;
            let sure = legality.surely_legal(from, targets);
            for to in squares_of(targets) {
                let m = Move::new(from, to);
                if sure & point_bit(to.index()) != 0
                    || self.is_legal_pseudo_against(m, legality.kinds)
                {
                    any = true;
                    if wanted(m) {
                        return (true, true);
                    }
                }
            }
        }
        (false, any)
    }

    /// A legal step of the general of the side to move, if it has one.
    #[inline(always)]
    fn legal_general_step(&self, legality: &Legality) -> Option<Move> {
        let us = self.turn;
        let general = self.general(us);
        for &to in &GENERAL_STEPS[general.index()] {
            if to == NONE {
                break;
            }
            let own = matches!(self.at(to as usize), Some(p) if p.color == us);
            let m = Move::new(general, sq(to));
            if !own && legality.move_is_legal(self, m) {
                return Some(m);
            }
        }
        None
    }

    #[inline(always)]
    fn has_legal_move_with(&self, legality: &Legality) -> bool {
        // the general's own steps first: few, and usually one of them is legal
        if self.legal_general_step(legality).is_some() {
            return true;
        }
        // then the others' targets as bits, without listing their moves
        let us = self.turn;
        let general = self.general(us);
        let occupied = self.occupancy();
        let others = self.occupied[us.index()] & !point_bit(general.index());
        squares_of(others).any(|from| {
            let (quiet, captures) = self.targets(from.index(), occupied);
            self.may_go_to_one_of(from, quiet | captures, legality)
        })
    }

    /// The end of the game, if the side to move has no legal move (it has lost).
    pub fn game_end(&self) -> Option<GameEnd> {
        if self.has_legal_move() {
            None
        } else if self.is_check() {
            Some(GameEnd::Checkmate { loser: self.turn })
        } else {
            Some(GameEnd::Stalemate { loser: self.turn })
        }
    }

    /// Plays a move after checking that it is legal.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMove> {
        if self.is_legal(m) {
            self.play_unchecked(m);
            Ok(())
        } else {
            Err(IllegalMove { mv: m })
        }
    }

    /// The non-capturing un-moves into this position: moves `from → to` by the side that
    /// just moved (not the side to move) that lead here from a legal position. The
    /// predecessor has `from` holding the piece now on `to`, `to` empty, and that side to
    /// move; [`Position::unplay_unchecked`] builds it.
    pub fn unmoves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.pseudo_unmoves(&mut list);
        let legality = self.unmove_legality_against(self.attacker_kinds());
        list.retain(|m| legality.unmove_is_legal(self, m));
        list
    }

    /// Every non-capturing un-move by the piece rules, without asking whether the
    /// predecessor is legal (the side to move here must not be in check there).
    pub fn pseudo_unmoves(&self, list: &mut MoveList) {
        for to in squares_of(self.occupied[(!self.turn).index()]) {
            self.pseudo_unmoves_of(to, list);
        }
    }

    /// The un-moves of [`Position::pseudo_unmoves`] by the piece on `to`, which must belong
    /// to the side that just moved.
    #[inline(always)]
    pub fn pseudo_unmoves_of(&self, to: Square, list: &mut MoveList) {
        let them = !self.turn;
        let t = to.index();
        let piece = self.board[t].expect("a piece of the side that just moved");
        debug_assert_eq!(piece.color, them);
        let mut add = |from: usize| list.push(Move::new(sq(from as u8), to));
        match piece.kind {
            Kind::General | Kind::Advisor => {
                let steps = if piece.kind == Kind::General {
                    &GENERAL_STEPS[t]
                } else {
                    &ADVISOR_STEPS[t]
                };
                for &from in steps {
                    if from == NONE {
                        break;
                    }
                    if self.is_empty_at(from as usize) {
                        add(from as usize);
                    }
                }
            }
            Kind::Elephant => {
                for &(from, eye) in &ELEPHANT_STEPS[t] {
                    if from == NONE {
                        break;
                    }
                    if self.is_empty_at(from as usize) && self.is_empty_at(eye as usize) {
                        add(from as usize);
                    }
                }
            }
            Kind::Horse => {
                // the leg sits next to the origin, not next to the target
                for &(from, leg) in &HORSE_SOURCES[t] {
                    if from == NONE {
                        break;
                    }
                    if self.is_empty_at(from as usize) && self.is_empty_at(leg as usize) {
                        add(from as usize);
                    }
                }
            }
            Kind::Chariot | Kind::Cannon => {
                for (dir, &len) in RAY_LEN[t].iter().enumerate() {
                    let mut s = t;
                    for _ in 0..len {
                        s = step(s, dir);
                        if !self.is_empty_at(s) {
                            break;
                        }
                        add(s);
                    }
                }
            }
            Kind::Soldier => {
                if let Some(from) = to.offset(0, -them.forward())
                    && piece.can_stand_on(from)
                    && self.is_empty_at(from.index())
                {
                    add(from.index());
                }
                if !to.on_own_half(them) {
                    for df in [-1, 1] {
                        if let Some(from) = to.offset(df, 0)
                            && self.is_empty_at(from.index())
                        {
                            add(from.index());
                        }
                    }
                }
            }
        }
    }
}

/// A move that is not legal in the position it was tried in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal move {mv}")]
pub struct IllegalMove {
    /// The move that was tried.
    pub mv: Move,
}

/// A board as `general_attacked` sees it: possibly a position with one move applied in
/// thought, given by its occupancy, the attacking general's point and a lookup.
struct Board<F: Fn(usize) -> Option<Piece>> {
    occupied: u128,
    enemy_general: usize,
    at: F,
}

/// Whether a general on `k` is attacked by side `by` or faces `by`'s general, on the
/// board that `board` describes, by the kinds of piece in `kinds` (the general counts
/// with the sliders), along the half-lines from `k` that hold a point of `rays`.
#[inline(always)]
fn general_attacked<F: Fn(usize) -> Option<Piece>>(
    k: usize,
    by: Color,
    kinds: Attackers,
    rays: u128,
    board: Board<F>,
) -> bool {
    let at = &board.at;
    if kinds.sliders {
        let chariot = Some(Piece::new(by, Kind::Chariot));
        let cannon = Some(Piece::new(by, Kind::Cannon));
        let general = Some(Piece::new(by, Kind::General));
        // the nearest piece of a half-line: north and east count up, south and west down
        let nearest = |pieces: u128, dir: usize| {
            if dir.is_multiple_of(2) {
                pieces.trailing_zeros() as usize
            } else {
                127 - pieces.leading_zeros() as usize
            }
        };
        for (dir, &ray) in RAYS[k].iter().enumerate() {
            if ray & rays == 0 {
                continue;
            }
            let mut pieces = board.occupied & ray;
            if pieces == 0 {
                continue;
            }
            let first = nearest(pieces, dir);
            let p = at(first);
            if p == chariot || (dir < 2 && p == general) {
                return true;
            }
            // second piece: a cannon behind a screen
            pieces &= !point_bit(first);
            if pieces != 0 && at(nearest(pieces, dir)) == cannon {
                return true;
            }
        }
    } else {
        // without chariots and cannons only the other general, along an open file
        let eg = board.enemy_general;
        if eg % 9 == k % 9 && board.occupied & between(k, eg) == 0 {
            return true;
        }
    }
    if kinds.horses {
        let horse = Some(Piece::new(by, Kind::Horse));
        for from in squares_of(board.occupied & HORSE_ATTACKS.origins[k]) {
            let leg = HORSE_ATTACKS.leg[k][from.index()] as usize;
            if board.occupied & point_bit(leg) == 0 && at(from.index()) == horse {
                return true;
            }
        }
    }
    // Soldiers: a general is always on the attacker's far side of the river, so a
    // soldier in front of it or beside it attacks it.
    let soldier = Some(Piece::new(by, Kind::Soldier));
    let front = (k as isize - 9 * by.forward() as isize) as usize;
    kinds.soldiers
        && ((front < 90 && at(front) == soldier)
            || (!k.is_multiple_of(9) && at(k - 1) == soldier)
            || (k % 9 < 8 && at(k + 1) == soldier))
}

/// Which kinds of attacker a side has besides its general.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attackers {
    /// Chariots or cannons.
    pub sliders: bool,
    /// Count horses.
    pub horses: bool,
    /// Count soldiers.
    pub soldiers: bool,
}

impl Attackers {
    /// Every kind of attacker.
    pub const ALL: Attackers = Attackers {
        sliders: true,
        horses: true,
        soldiers: true,
    };
    /// No horse and no soldier: the sliding pieces alone.
    pub const NONE: Attackers = Attackers {
        sliders: false,
        horses: false,
        soldiers: false,
    };

    /// The kinds of attacker among one side's pieces of a material.
    pub fn of(side: &crate::game::material::Side) -> Attackers {
        Attackers {
            sliders: side.count(Kind::Chariot) + side.count(Kind::Cannon) > 0,
            horses: side.count(Kind::Horse) > 0,
            soldiers: side.count(Kind::Soldier) > 0,
        }
    }
}

/// A seeded xorshift generator for tests that play random moves reproducibly.
#[cfg(test)]
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays `games` seeded random games of at most `plies` plies from each start, showing
    /// `visit` every position reached (a game ends early at a game end).
    fn random_play(
        starts: &[&str],
        seed: u64,
        (games, plies): (usize, usize),
        mut visit: impl FnMut(&Position),
    ) {
        let mut next = xorshift(seed);
        for fen in starts {
            for _ in 0..games {
                let mut pos: Position = fen.parse().unwrap();
                for _ in 0..plies {
                    visit(&pos);
                    let legal = pos.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    pos.play_unchecked(legal[(next() % legal.len() as u64) as usize]);
                }
            }
        }
    }

    /// `is_pseudo_legal` agrees with `pseudo_moves` on every from-to pair, over positions
    /// reached by seeded random play from a few starts.
    #[test]
    fn pseudo_legality_matches_the_generator() {
        let starts = [
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
            "1CbR1arCR/4k4/r3b4/9/p1p1p4/9/2P6/B3B4/4A4/4Kc1N1 w - - 1 30",
            "3k5/4P4/9/9/9/9/9/9/3p5/4K4 b - - 0 1",
        ];
        let mut checked = 0;
        random_play(&starts, 0x9e37_79b9_7f4a_7c15, (1, 60), |pos| {
            let mut list = MoveList::new();
            pos.pseudo_moves(&mut list);
            for from in Square::all() {
                for to in Square::all() {
                    let m = Move::new(from, to);
                    assert_eq!(pos.is_pseudo_legal(m), list.contains(&m), "{m:?} in {pos}");
                    checked += 1;
                }
            }
        });
        assert!(checked > 100_000);
    }

    /// The quick legality tests of moves and of un-moves agree with playing (or unplaying)
    /// the move and asking whether the general of the side that is not to move then is
    /// attacked, on positions from random play, horses aimed at palaces among them.
    #[test]
    fn quick_legality_agrees_with_playing_the_move() {
        let starts = [
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
            "3akab2/9/4b1N2/2N6/9/9/9/4B4/4A4/3AK4 w - - 0 1",
            "2bak4/4a4/3N5/2N6/9/9/4p4/9/4n4/3K5 b - - 0 1",
            "4k4/9/9/9/2n1n4/9/9/3A1A3/4K4/9 w - - 0 1",
            // chariots and cannons stacked on the generals' file and ranks: pins behind
            // one piece, cannons behind none or two
            "2bakab2/9/2n1c1n2/p1p1r1p1p/9/9/P1P1R1P1P/2N1C1N2/9/2BAKAB2 w - - 0 1",
            "4k4/4a4/4c4/9/4r4/9/4R4/4C4/4A4/4K4 w - - 0 1",
            "3k5/4a4/9/c2C1r3/9/9/3R5/3c5/9/R2K1n3 w - - 0 1",
        ];
        let (mut positions, mut moves, mut unmoves, mut pinned) = (0, 0, 0, 0);
        random_play(&starts, 0x51a3_9d2c_77e1_0b4f, (30, 60), |pos| {
            positions += 1;
            let us = pos.turn();
            let legality = pos.legality();
            let mut list = MoveList::new();
            pos.pseudo_moves(&mut list);
            for &m in list.iter() {
                let mut after = pos.clone();
                after.play_unchecked(m);
                let legal = !after.in_check(us);
                assert_eq!(legality.move_is_legal(pos, m), legal, "{m:?} in {pos}");
                moves += 1;
                pinned += usize::from(!legal && !pos.is_check());
            }
            let back = pos.unmove_legality_against(pos.attacker_kinds());
            list.clear();
            pos.pseudo_unmoves(&mut list);
            for &u in list.iter() {
                let mut before = pos.clone();
                before.unplay_unchecked(u);
                let legal = !before.in_check(us);
                assert_eq!(back.unmove_is_legal(pos, u), legal, "{u:?} into {pos}");
                unmoves += 1;
            }
        });
        println!(
            "{positions} positions: {moves} moves, {unmoves} un-moves, {pinned} illegal out of check"
        );
        assert!(
            moves > 50_000 && unmoves > 50_000 && pinned > 100,
            "{moves} moves, {unmoves} un-moves, {pinned} illegal out of check"
        );
    }

    /// The bit count of quiet moves equals counting the listed moves one by one (with every
    /// kind of attacker assumed and with the kinds present), whether one is legal agrees,
    /// and the captures are the listed ones, on positions from random play.
    #[test]
    fn quiet_moves_and_captures_match_the_list() {
        let starts = [
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
            "1CbR1arCR/4k4/r3b4/9/p1p1p4/9/2P6/B3B4/4A4/4Kc1N1 w - - 1 30",
            "2b6/4a4/5k1C1/3c5/9/9/2n6/3K5/9/5A3 b - - 5 128",
            "3k5/4P4/9/9/9/9/9/9/3p5/4K4 b - - 0 1",
            "4k4/9/9/9/9/9/9/9/4r4/3K1R3 w - - 0 1",
        ];
        let (mut checked, mut in_check, mut game_ends) = (0, 0, 0);
        random_play(&starts, 0x2545_f491_4f6c_dd1d, (40, 80), |pos| {
            let mut list = MoveList::new();
            pos.pseudo_moves(&mut list);
            let legality = pos.legality();
            let expected = list
                .iter()
                .filter(|&&m| pos.piece_at(m.to()).is_none())
                .filter(|&&m| legality.move_is_legal(pos, m))
                .count() as u32;
            for kinds in [legality.kinds, Attackers::ALL] {
                assert_eq!(
                    pos.count_legal_quiet_moves_against(kinds),
                    expected,
                    "{pos}"
                );
            }
            assert_eq!(pos.has_legal_quiet_move(&legality), expected > 0, "{pos}");
            let legal = pos.legal_moves();
            assert_eq!(pos.has_legal_move(), !legal.is_empty(), "{pos}");
            // the legal move found, when there is one, is one of them
            let some = pos.some_legal_move_against(legality.kinds, pos.is_check());
            assert_eq!(some.is_some(), !legal.is_empty(), "{pos}");
            assert!(some.is_none_or(|m| legal.contains(&m)), "{some:?} in {pos}");
            game_ends += usize::from(legal.is_empty());
            let mut captures = MoveList::new();
            pos.pseudo_captures(&mut captures);
            let mut listed: Vec<Move> = list
                .iter()
                .copied()
                .filter(|m| pos.piece_at(m.to()).is_some())
                .collect();
            let mut found: Vec<Move> = captures.iter().copied().collect();
            listed.sort_by_key(|m| (m.from().index(), m.to().index()));
            found.sort_by_key(|m| (m.from().index(), m.to().index()));
            assert_eq!(found, listed, "{pos}");
            checked += 1;
            in_check += usize::from(pos.is_check());
        });
        println!("{checked} positions, {in_check} in check, {game_ends} game ends");
        assert!(
            checked > 10_000 && in_check > 100 && game_ends > 20,
            "{checked} positions, {in_check} in check, {game_ends} game ends"
        );
    }
}
