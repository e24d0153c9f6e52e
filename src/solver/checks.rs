//! Which moves can give check: the points a move's outcome depends on (its footprint),
//! the moves that may check a general (`check_candidates`, `moves_touching`) and the
//! filter that tells, before a move is played, whether it may give check.

use crate::game::movegen::squares_of;
use crate::game::moves::{Move, MoveList};
use crate::game::piece::Kind;
use crate::game::position::Position;
use crate::game::square::Square;

/// The points a move's outcome depends on: where it starts and ends and every point it
/// passes (a chariot's or cannon's line, a horse's leg, an elephant's eye).
pub(super) fn footprint(kind: Kind, m: Move) -> u128 {
    let (a, b) = (m.from().index(), m.to().index());
    let ends = 1u128 << a | 1u128 << b;
    match kind {
        Kind::Horse => {
            let (fa, ra) = (a % 9, a / 9);
            let (fb, rb) = (b % 9, b / 9);
            // the leg: one step from the start along the long side of the move
            let leg = if fa.abs_diff(fb) == 2 {
                ra * 9 + (fa + fb) / 2
            } else {
                (ra + rb) / 2 * 9 + fa
            };
            ends | 1u128 << leg
        }
        Kind::Elephant => ends | 1u128 << ((a + b) / 2),
        Kind::Chariot | Kind::Cannon => ends | crate::game::movegen::between(a, b),
        // one step
        _ => ends,
    }
}

/// The points within two files and two ranks of each point (the point itself included):
/// where a general, advisor, elephant, horse or soldier can be after one move.
pub(super) static NEAR: [u128; 90] = {
    let mut t = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut q = 0usize;
        while q < 90 {
            let (g, h) = ((q % 9) as i32, (q / 9) as i32);
            if (g - f).abs() <= 2 && (h - r).abs() <= 2 {
                t[s] |= 1u128 << q;
            }
            q += 1;
        }
        s += 1;
    }
    t
};

/// The nearest occupied point of a half-line from [`crate::game::attacks::RAYS`] (north and east
/// count up from their point, south and west down).
#[inline(always)]
pub(super) fn nearest(dir: usize, bits: u128) -> u128 {
    if dir.is_multiple_of(2) {
        bits & bits.wrapping_neg()
    } else {
        1u128 << (127 - bits.leading_zeros())
    }
}

/// The points of a half-line before `p`, one of its points.
#[inline(always)]
pub(super) fn before(dir: usize, ray: u128, p: u128) -> u128 {
    if dir.is_multiple_of(2) {
        ray & (p - 1)
    } else {
        ray & !((p << 1) - 1)
    }
}

/// Adds the pseudo-legal moves of the side to move that may give check (the other general
/// not being in check), found from where each kind of piece attacks the general rather than
/// by testing every move:
///
/// - A piece whose leaving may uncover an attack (the first piece of a half-line with a
///   chariot of the mover's second, one of the first two with a cannon of the mover's
///   third, a piece on the leg of a horse of the mover's aimed at the general), and a
///   cannon of the mover's first on a half-line (it checks by taking the third piece over
///   the second): all its moves.
/// - Any other piece: its moves that land where its kind attacks the general (a chariot
///   before the half-line's first piece or onto it, a cannon between the first and second
///   or onto the second, a horse where horses attack from with the leg free, a soldier
///   next to the general), or before a cannon of the mover's that is the first piece of a
///   half-line (as its screen). Moving along a half-line it stands on changes nothing else
///   for the others: a chariot first on one, or a cannon second, would be attacking
///   already.
///
/// The moves of the first kind come first in the list; the number of them is returned.
/// Every move of the second kind gives check: it lands where the general is attacked from
/// with nothing else between, or in front of a cannon with nothing between.
///
/// (Opening the file between the generals is not a legal move, so it needs no test.)
pub(super) fn check_candidates(pos: &Position, list: &mut MoveList) -> usize {
    use crate::game::attacks::{HORSE_ATTACKS, RAYS, SOLDIER_REACH};
    let us = pos.turn();
    let g = pos.general(!us).index();
    let occupied = pos.occupancy();
    let ours = pos.occupied[us.index()];
    let theirs = pos.occupied[(!us).index()];
    let kind_of = |b: u128| {
        (b & ours != 0)
            .then(|| pos.board[b.trailing_zeros() as usize].map(|p| p.kind))
            .flatten()
    };
    let (mut screen, mut chariot, mut cannon, mut soldier, mut uncover) = (0, 0, 0, 0, 0);
    for (dir, &ray) in RAYS[g].iter().enumerate() {
        let blockers = ray & occupied;
        if ray != 0 {
            let next = nearest(dir, ray);
            if SOLDIER_REACH[us.index()][next.trailing_zeros() as usize] >> g & 1 == 1 {
                soldier |= next;
            }
        }
        if blockers == 0 {
            chariot |= ray;
            continue;
        }
        let first = nearest(dir, blockers);
        let open = before(dir, ray, first);
        chariot |= open | (first & theirs);
        if kind_of(first) == Some(Kind::Cannon) {
            // (it becomes a screen's cannon by taking the third piece over the second)
            screen |= open;
            uncover |= first;
        }
        let beyond = ray & !open & !first;
        let rest = blockers & !first;
        if rest == 0 {
            cannon |= beyond;
            continue;
        }
        let second = nearest(dir, rest);
        cannon |= (beyond & before(dir, ray, second)) | (second & theirs);
        if kind_of(second) == Some(Kind::Chariot) {
            uncover |= first & ours;
        }
        let rest = rest & !second;
        if rest != 0 && kind_of(nearest(dir, rest)) == Some(Kind::Cannon) {
            uncover |= (first | second) & ours;
        }
    }
    let mut horse = 0;
    for s in squares_of(HORSE_ATTACKS.origins[g]) {
        let s = s.index();
        let leg = 1u128 << HORSE_ATTACKS.leg[g][s];
        if leg & occupied == 0 {
            horse |= 1u128 << s;
        } else if kind_of(1u128 << s) == Some(Kind::Horse) {
            uncover |= leg & ours;
        }
    }
    for from in squares_of(uncover & ours) {
        pos.pseudo_moves_from(from, list);
    }
    let unsure = list.len();
    for from in squares_of(ours & !uncover) {
        let i = from.index();
        let kind = pos.board[i].expect("an occupied point").kind;
        let land = screen
            | match kind {
                Kind::Chariot => chariot,
                Kind::Cannon => cannon,
                Kind::Horse => horse,
                Kind::Soldier => soldier,
                _ => 0,
            };
        if matches!(kind, Kind::Chariot | Kind::Cannon) {
            // (only the few landing points on its own file and rank: a look at what stands
            // between costs less than working out all it reaches)
            pos.slider_moves_to(from, land, list);
            continue;
        }
        if land == 0 || NEAR[i] & land == 0 {
            continue;
        }
        let (quiet, captures) = pos.targets(i, occupied);
        push_moves(from, (quiet | captures) & land, list);
    }
    unsure
}

/// Adds the moves from `from` to each of `ends`.
#[inline(always)]
pub(super) fn push_moves(from: Square, ends: u128, list: &mut MoveList) {
    for to in squares_of(ends) {
        list.push(Move::new(from, to));
    }
}

/// Adds the pseudo-legal moves of the side to move that start or end on one of `points`.
pub(super) fn moves_touching(pos: &Position, points: u128, list: &mut MoveList) {
    let occupied = pos.occupancy();
    for from in squares_of(pos.occupied[pos.turn().index()]) {
        let i = from.index();
        if points >> i & 1 == 1 {
            pos.pseudo_moves_from(from, list);
            continue;
        }
        // (a piece that cannot reach any of the points is passed over without working
        // out what it reaches)
        let reach = match pos.board[i].map(|p| p.kind) {
            Some(Kind::Chariot | Kind::Cannon) => crate::game::movegen::lines_of(i),
            _ => NEAR[i],
        };
        if reach & points == 0 {
            continue;
        }
        let (quiet, captures) = pos.targets(i, occupied);
        push_moves(from, (quiet | captures) & points, list);
    }
}

/// A quick, conservative test of whether a move of the side to move may give check: a
/// move it rejects surely gives none (the other general not being in check before it).
/// Inner nodes order their moves with it, checks first.
///
/// Whether a half-line from the general holds a check depends only on the points of that
/// half-line, so a move that touches none of them, or after which no chariot or cannon of
/// the mover stands on it, changes nothing there. Horse checks depend only on the
/// general's horse zone (the points horses check from and their legs) and need a horse on
/// one of those points afterwards. A soldier's check depends on nothing but where it
/// stands, so only the moving soldier can give a new one, from next to the general.
/// (Opening the file between the generals is not a legal move, so it needs no test.)
pub(super) struct CheckFilter {
    /// The half-lines from the general that hold at least one chariot or cannon of the
    /// mover, and at least two.
    lines_one: u128,
    lines_two: u128,
    /// All four half-lines.
    lines: u128,
    /// A horse of the mover stands where horses check the general from.
    horse_in_sources: u128,
    horse_zone: u128,
    horse_sources: u128,
    near: u128,
}

impl CheckFilter {
    pub(super) fn new(pos: &Position) -> CheckFilter {
        let us = pos.turn();
        let g = pos.general(!us).index();
        let horse_sources = crate::game::attacks::HORSE_ATTACKS.origins[g];
        let horse_zone = crate::game::movegen::horse_zone_of(g);
        let rays = crate::game::attacks::RAYS[g];
        let lines = rays[0] | rays[1] | rays[2] | rays[3];
        // the mover's chariots and cannons on the half-lines and horses where horses check
        // from: only those count below
        let (mut sliders, mut horses) = (0u128, 0u128);
        let mut own = pos.occupied[us.index()] & (lines | horse_sources);
        while own != 0 {
            let i = own.trailing_zeros() as usize;
            own &= own - 1;
            match pos.board[i].map(|p| p.kind) {
                Some(Kind::Chariot | Kind::Cannon) => sliders |= 1u128 << i,
                Some(Kind::Horse) => horses |= 1u128 << i,
                _ => {}
            }
        }
        let (mut lines_one, mut lines_two) = (0u128, 0u128);
        for ray in rays {
            match (ray & sliders).count_ones() {
                0 => {}
                1 => lines_one |= ray,
                _ => {
                    lines_one |= ray;
                    lines_two |= ray;
                }
            }
        }
        // the nearest point of each half-line: north and east count up, south and west down
        let lowest = |r: u128| r & r.wrapping_neg();
        let highest = |r: u128| {
            if r == 0 {
                0
            } else {
                1u128 << (127 - r.leading_zeros())
            }
        };
        let near = lowest(rays[0]) | highest(rays[1]) | lowest(rays[2]) | highest(rays[3]);
        CheckFilter {
            lines_one,
            lines_two,
            lines,
            horse_in_sources: horses & horse_sources,
            horse_zone,
            horse_sources,
            near,
        }
    }

    /// Whether the move may give check. A half-line changes only where the move touches
    /// it, and holds a check afterwards only if a chariot or cannon stands on it then:
    /// for a move by another piece, one that stands there now; for a chariot or cannon,
    /// one arriving there or another already there. Horses likewise for the horse zone.
    #[inline]
    pub(super) fn may_check(&self, pos: &Position, m: Move) -> bool {
        let (a, b) = (1u128 << m.from().index(), 1u128 << m.to().index());
        let touched = a | b;
        let Some(kind) = pos.piece_at(m.from()).map(|p| p.kind) else {
            return true;
        };
        let lines = match kind {
            Kind::Chariot | Kind::Cannon => b & self.lines != 0 || a & self.lines_two != 0,
            _ => touched & self.lines_one != 0,
        };
        let horses = match kind {
            Kind::Horse => {
                b & self.horse_sources != 0
                    || (self.horse_in_sources & !a != 0 && touched & self.horse_zone != 0)
            }
            _ => self.horse_in_sources != 0 && touched & self.horse_zone != 0,
        };
        lines || horses || (kind == Kind::Soldier && b & self.near != 0)
    }
}

/// Whether the side to move in `pos` (whose opponent is not in check) has a move that
/// checkmates: [`crate::game::threat::mates_in_one`]'s answer, with only the candidate
/// checks ([`check_candidates`]) tried rather than every move.
pub(super) fn checkmates_in_one(pos: &mut Position) -> bool {
    let mut list = MoveList::new();
    let unsure = check_candidates(pos, &mut list);
    let mut legality = None;
    for (i, &m) in list.iter().enumerate() {
        if i < unsure && !pos.gives_check(m) {
            continue;
        }
        if !legality
            .get_or_insert_with(|| pos.legality())
            .move_is_legal(pos, m)
        {
            continue;
        }
        let undo = pos.play_unchecked(m);
        let mated = !pos.has_legal_move_knowing(true);
        pos.undo(m, undo);
        if mated {
            return true;
        }
    }
    false
}
