//! Precomputed step tables, built at compile time: where each piece can step from each
//! point, with the point that blocks the step (horse leg, elephant eye).

/// "No square" marker inside the tables.
pub(crate) const NONE: u8 = u8::MAX;

/// Directions for sliding: north (+rank), south, east (+file), west.
pub(crate) const DIR_STEP: [i8; 4] = [9, -9, 1, -1];

const fn sq(f: i8, r: i8) -> u8 {
    (r * 9 + f) as u8
}

const fn on_board(f: i8, r: i8) -> bool {
    f >= 0 && f < 9 && r >= 0 && r < 10
}

const fn in_a_palace(f: i8, r: i8) -> bool {
    f >= 3 && f <= 5 && (r <= 2 || r >= 7)
}

/// Number of squares from each square to the edge in each of [`DIR_STEP`]'s directions.
pub(crate) static RAY_LEN: [[u8; 4]; 90] = {
    let mut t = [[0u8; 4]; 90];
    let mut s = 0;
    while s < 90 {
        let f = (s % 9) as u8;
        let r = (s / 9) as u8;
        t[s] = [9 - r, r, 8 - f, f];
        s += 1;
    }
    t
};

/// The four half-lines from each point to the edge of the board (the point itself not
/// included): north, south, east, west, as in [`DIR_STEP`].
pub(crate) static RAYS: [[u128; 4]; 90] = {
    let mut t = [[0u128; 4]; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let dirs = [(0, 1), (0, -1), (1, 0), (-1, 0)];
        let mut d = 0;
        while d < 4 {
            let (mut x, mut y) = (f + dirs[d].0, r + dirs[d].1);
            while x >= 0 && x < 9 && y >= 0 && y < 10 {
                t[s][d] |= 1u128 << (y * 9 + x);
                x += dirs[d].0;
                y += dirs[d].1;
            }
            d += 1;
        }
        s += 1;
    }
    t
};

/// One-point steps in the given directions that stay inside the palace the square belongs
/// to (NONE-padded).
const fn palace_steps(d: [(i8, i8); 4]) -> [[u8; 4]; 90] {
    let mut t = [[NONE; 4]; 90];
    let mut s = 0;
    while s < 90 {
        let f = (s % 9) as i8;
        let r = (s / 9) as i8;
        if in_a_palace(f, r) {
            let mut n = 0;
            let mut i = 0;
            while i < 4 {
                let (nf, nr) = (f + d[i].0, r + d[i].1);
                // stay in the same palace: both on the same side of the river
                if on_board(nf, nr) && in_a_palace(nf, nr) && (nr <= 4) == (r <= 4) {
                    t[s][n] = sq(nf, nr);
                    n += 1;
                }
                i += 1;
            }
        }
        s += 1;
    }
    t
}

/// General steps (orthogonal) within the palace (NONE-padded).
pub(crate) static GENERAL_STEPS: [[u8; 4]; 90] = palace_steps([(0, 1), (0, -1), (1, 0), (-1, 0)]);

/// Advisor steps (diagonal) within the palace (NONE-padded).
pub(crate) static ADVISOR_STEPS: [[u8; 4]; 90] = palace_steps([(1, 1), (1, -1), (-1, 1), (-1, -1)]);

/// Elephant steps: (destination, eye) pairs that stay on the same half (NONE-padded).
pub(crate) static ELEPHANT_STEPS: [[(u8, u8); 4]; 90] = {
    let mut t = [[(NONE, NONE); 4]; 90];
    let d: [(i8, i8); 4] = [(2, 2), (2, -2), (-2, 2), (-2, -2)];
    let mut s = 0;
    while s < 90 {
        let f = (s % 9) as i8;
        let r = (s / 9) as i8;
        let mut n = 0;
        let mut i = 0;
        while i < 4 {
            let (nf, nr) = (f + d[i].0, r + d[i].1);
            if on_board(nf, nr) && (nr <= 4) == (r <= 4) {
                t[s][n] = (sq(nf, nr), sq(f + d[i].0 / 2, r + d[i].1 / 2));
                n += 1;
            }
            i += 1;
        }
        s += 1;
    }
    t
};

const HORSE_JUMPS: [(i8, i8); 8] = [
    (1, 2),
    (-1, 2),
    (1, -2),
    (-1, -2),
    (2, 1),
    (2, -1),
    (-2, 1),
    (-2, -1),
];

/// Horse moves from a square: (destination, leg) where the leg is the orthogonal
/// neighbour of the origin in the long direction (NONE-padded).
pub(crate) static HORSE_STEPS: [[(u8, u8); 8]; 90] = {
    let mut t = [[(NONE, NONE); 8]; 90];
    let mut s = 0;
    while s < 90 {
        let f = (s % 9) as i8;
        let r = (s / 9) as i8;
        let mut n = 0;
        let mut i = 0;
        while i < 8 {
            let (df, dr) = HORSE_JUMPS[i];
            if on_board(f + df, r + dr) {
                t[s][n] = (sq(f + df, r + dr), sq(f + df / 2, r + dr / 2));
                n += 1;
            }
            i += 1;
        }
        s += 1;
    }
    t
};

/// Horses that reach a square: (origin, leg) where the leg is next to the origin.
/// The same pairs serve as horse un-moves into the square.
pub(crate) static HORSE_SOURCES: [[(u8, u8); 8]; 90] = {
    let mut t = [[(NONE, NONE); 8]; 90];
    let mut s = 0;
    while s < 90 {
        let f = (s % 9) as i8;
        let r = (s / 9) as i8;
        let mut n = 0;
        let mut i = 0;
        while i < 8 {
            let (df, dr) = HORSE_JUMPS[i];
            // origin o = s - (df, dr); leg = o + (df/2, dr/2)
            let (of, or) = (f - df, r - dr);
            if on_board(of, or) {
                t[s][n] = (sq(of, or), sq(of + df / 2, or + dr / 2));
                n += 1;
            }
            i += 1;
        }
        s += 1;
    }
    t
};

/// Where a horse attacks each point from ([`HORSE_SOURCES`]' origins), as a mask, and for
/// each such origin the leg of that attack (NONE elsewhere).
pub(crate) struct HorseAttacks {
    pub(crate) origins: [u128; 90],
    pub(crate) leg: [[u8; 90]; 90],
}

pub(crate) static HORSE_ATTACKS: HorseAttacks = {
    let mut t = HorseAttacks {
        origins: [0; 90],
        leg: [[NONE; 90]; 90],
    };
    let mut s = 0;
    while s < 90 {
        let mut i = 0;
        while i < 8 && HORSE_SOURCES[s][i].0 != NONE {
            let (from, leg) = HORSE_SOURCES[s][i];
            t.origins[s] |= 1u128 << from;
            t.leg[s][from as usize] = leg;
            i += 1;
        }
        s += 1;
    }
    t
};

/// The points a step piece reaches from each point whatever stands around it, as a mask
/// (a target that holds a piece of its own side is taken out by the caller).
const fn step_reach(steps: &[[u8; 4]; 90]) -> [u128; 90] {
    let mut t = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        let mut i = 0;
        while i < 4 && steps[s][i] != NONE {
            t[s] |= 1u128 << steps[s][i];
            i += 1;
        }
        s += 1;
    }
    t
}

/// [`GENERAL_STEPS`] as masks.
pub(crate) static GENERAL_REACH: [u128; 90] = step_reach(&GENERAL_STEPS);

/// [`ADVISOR_STEPS`] as masks.
pub(crate) static ADVISOR_REACH: [u128; 90] = step_reach(&ADVISOR_STEPS);

/// A piece whose steps can be blocked (horse, elephant), as masks: from each point, the
/// points that block its steps (at most four, NONE-padded), and for each pattern of them
/// (bit `k` set: `blocks[k]` is empty) the points it reaches.
pub(crate) struct BlockedReach {
    pub(crate) blocks: [[u8; 4]; 90],
    pub(crate) reach: [[u128; 16]; 90],
}

const fn blocked_reach<const N: usize>(steps: &[[(u8, u8); N]; 90]) -> BlockedReach {
    let mut t = BlockedReach {
        blocks: [[NONE; 4]; 90],
        reach: [[0; 16]; 90],
    };
    let mut s = 0;
    while s < 90 {
        let mut i = 0;
        while i < N && steps[s][i].0 != NONE {
            let (to, block) = steps[s][i];
            // the block's place among the point's blocks, added when new
            let mut k = 0;
            while t.blocks[s][k] != NONE && t.blocks[s][k] != block {
                k += 1;
            }
            t.blocks[s][k] = block;
            let mut pattern = 0;
            while pattern < 16 {
                if pattern & (1 << k) != 0 {
                    t.reach[s][pattern] |= 1u128 << to;
                }
                pattern += 1;
            }
            i += 1;
        }
        s += 1;
    }
    t
}

/// [`HORSE_STEPS`] as masks by leg.
pub(crate) static HORSE_REACH: BlockedReach = blocked_reach(&HORSE_STEPS);

/// [`ELEPHANT_STEPS`] as masks by eye.
pub(crate) static ELEPHANT_REACH: BlockedReach = blocked_reach(&ELEPHANT_STEPS);

/// The points a soldier of each side (red, black) reaches from each point: forward, and
/// sideways once across the river.
pub(crate) static SOLDIER_REACH: [[u128; 90]; 2] = {
    let mut t = [[0u128; 90]; 2];
    let mut s = 0;
    while s < 90 {
        let f = (s % 9) as i8;
        let r = (s / 9) as i8;
        let mut c = 0;
        while c < 2 {
            let (forward, crossed) = if c == 0 { (1, r >= 5) } else { (-1, r <= 4) };
            if on_board(f, r + forward) {
                t[c][s] |= 1u128 << sq(f, r + forward);
            }
            if crossed {
                if on_board(f - 1, r) {
                    t[c][s] |= 1u128 << sq(f - 1, r);
                }
                if on_board(f + 1, r) {
                    t[c][s] |= 1u128 << sq(f + 1, r);
                }
            }
            c += 1;
        }
        s += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn horse_sources_invert_horse_steps() {
        for (s, steps) in HORSE_STEPS.iter().enumerate() {
            for &(to, leg) in steps.iter().filter(|p| p.0 != NONE) {
                assert!(HORSE_SOURCES[to as usize].contains(&(s as u8, leg)));
            }
        }
        let total: usize = HORSE_STEPS
            .iter()
            .map(|v| v.iter().filter(|p| p.0 != NONE).count())
            .sum();
        let total2: usize = HORSE_SOURCES
            .iter()
            .map(|v| v.iter().filter(|p| p.0 != NONE).count())
            .sum();
        assert_eq!(total, total2);
    }

    #[test]
    fn palace_steps() {
        // e1 (centre of red's palace) has four general steps and four advisor steps
        assert_eq!(GENERAL_STEPS[13].iter().filter(|&&x| x != NONE).count(), 4);
        assert_eq!(ADVISOR_STEPS[13].iter().filter(|&&x| x != NONE).count(), 4);
        // d2 has general steps to d1, e2 only
        assert_eq!(GENERAL_STEPS[21].iter().filter(|&&x| x != NONE).count(), 2);
        // elephants never cross: c4 (index 38) goes only to a2, e2
        let e: Vec<u8> = ELEPHANT_STEPS[38]
            .iter()
            .filter(|p| p.0 != NONE)
            .map(|p| p.0)
            .collect();
        assert_eq!(e.len(), 2);
    }
}
