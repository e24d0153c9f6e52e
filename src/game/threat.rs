//! What a move attacks, in the terms the 棋例 use to judge a repeated position: 将 (a check),
//! 杀 (a threat of mate next move), 捉 (a threat to win material next move) or 闲 (none of
//! them). A side that plays 将, 杀 or 捉 (together, "打") on every move of a repetition
//! plays 长打, which the rules forbid; the definitions and the reading canju takes where
//! rule books differ are in `docs/long-attack.md`.
//!
//! The judgement of a move looks one move ahead and no further: the threat is what the
//! mover could do next if the other side let it (a "pass"), and a capture is real only if
//! it is legal (a pinned piece does not attack, and no piece may leave its general facing
//! the other).

use std::fmt;

use super::moves::Move;
use super::piece::{Kind, Piece};
use super::position::Position;
use super::square::Square;

/// Why an attacked piece counts as chased.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChaseReason {
    /// Nothing can take back on its point: its capture wins it for nothing.
    Unprotected,
    /// A chariot attacked by a horse or a cannon, protected or not: the exchange wins
    /// material either way.
    Chariot,
}

impl ChaseReason {
    /// Its name in JSON: `unprotected`, `chariot`.
    pub fn name(self) -> &'static str {
        match self {
            ChaseReason::Unprotected => "unprotected",
            ChaseReason::Chariot => "chariot",
        }
    }
}

/// One piece a move chases: the attacker (on its point after the move) and its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Chase {
    /// The attacking piece's point after the move.
    pub from: Square,
    /// The attacking piece.
    pub attacker: Piece,
    /// The chased piece's point.
    pub target: Square,
    /// The chased piece.
    pub piece: Piece,
    /// Why it counts.
    pub reason: ChaseReason,
}

/// What a move attacks, as JSON gives it (`canju moves --json`, `/api/moves?attacks=true`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AttackReport {
    /// `check`, `mate-threat`, `chase` or `idle`.
    pub attack: &'static str,
    /// 将, 杀, 捉 or 闲.
    pub attack_zh: &'static str,
    /// The pieces chased.
    pub chases: Vec<ChaseReport>,
}

/// One piece chased, as JSON gives it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ChaseReport {
    /// The attacker's point after the move.
    pub from: String,
    /// The chased piece's point.
    pub target: String,
    /// The chased piece's kind (`horse`).
    pub piece: &'static str,
    /// `unprotected` or `chariot`.
    pub reason: &'static str,
}

/// What a move attacks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attack {
    /// It gives check (将).
    pub check: bool,
    /// It does not check, but threatens checkmate next move (杀): if the other side let
    /// it move again, the mover would mate at once.
    pub mate_threat: bool,
    /// The pieces it newly threatens to win next move (捉), checks aside.
    pub chases: Vec<Chase>,
}

/// The class of a move in a repetition, the strongest that applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AttackKind {
    /// 闲: no check, no threat of mate, no chase.
    Idle,
    /// 捉: a threat to win a piece.
    Chase,
    /// 杀: a threat of mate next move.
    MateThreat,
    /// 将: a check.
    Check,
}

impl AttackKind {
    /// The Chinese term: 将, 杀, 捉, 闲.
    pub fn chinese(self) -> &'static str {
        match self {
            AttackKind::Check => "将",
            AttackKind::MateThreat => "杀",
            AttackKind::Chase => "捉",
            AttackKind::Idle => "闲",
        }
    }

    /// The English word, as JSON and English text write it.
    pub fn name(self) -> &'static str {
        match self {
            AttackKind::Check => "check",
            AttackKind::MateThreat => "mate-threat",
            AttackKind::Chase => "chase",
            AttackKind::Idle => "idle",
        }
    }

    /// 打: a check, a threat of mate or a chase, what a 长打 repeats.
    pub fn is_attack(self) -> bool {
        self != AttackKind::Idle
    }
}

impl fmt::Display for AttackKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Attack {
    /// As JSON gives it.
    pub fn report(&self) -> AttackReport {
        let kind = self.kind();
        AttackReport {
            attack: kind.name(),
            attack_zh: kind.chinese(),
            chases: self
                .chases
                .iter()
                .map(|c| ChaseReport {
                    from: c.from.to_string(),
                    target: c.target.to_string(),
                    piece: c.piece.kind.name(),
                    reason: c.reason.name(),
                })
                .collect(),
        }
    }

    /// The strongest class that applies.
    pub fn kind(&self) -> AttackKind {
        if self.check {
            AttackKind::Check
        } else if self.mate_threat {
            AttackKind::MateThreat
        } else if !self.chases.is_empty() {
            AttackKind::Chase
        } else {
            AttackKind::Idle
        }
    }
}

/// What the legal move `m` of the side to move in `pos` attacks.
///
/// - 将: the other side is in check after it.
/// - 杀: no check, and if the other side passed, the mover would have a move that mates
///   (将死; a stalemate threat is not 杀).
/// - 捉: no check, and the move creates a legal capture that it did not have before (by the
///   moving piece from its new point, or by a piece it uncovers) of a piece that nothing
///   can take back on its point, or of a chariot by a horse or a cannon. Not counted: the
///   general's and the soldiers' threats (the rules allow them to threaten on every move),
///   a soldier that has not crossed the river as the target, and a piece of the attacker's
///   own kind that can take the attacker back (an offer to exchange, 兑, which the rules
///   allow).
pub fn attack_of(pos: &Position, m: Move) -> Attack {
    let Some((after, threat)) = after_quiet(pos, m) else {
        return Attack {
            check: true,
            ..Attack::default()
        };
    };
    let moves = Moves::of(&threat);
    let mate_threat = threatens_mate(&threat, &moves);
    let mut chases = Vec::new();
    each_chase(pos, m, &after, &threat, &moves.list, &moves.legality, |c| {
        chases.push(c);
        true
    });
    Attack {
        check: false,
        mate_threat,
        chases,
    }
}

/// Whether the legal move `m` of the side to move in `pos` is 打 (将, 杀 or 捉, as
/// [`attack_of`] defines them), without gathering what it attacks: the chases are looked
/// at before the (dearer) threat of mate, and the first one found answers.
pub fn is_attack(pos: &Position, m: Move) -> bool {
    is_attack_knowing(pos, m, |_| true)
}

/// [`is_attack`] for a caller that knows more about mates than the rules engine does: the
/// threat of mate is looked for only when `may_mate(after)` holds, `after` being the
/// position after `m` with the mover to move again (a tablebase answers whether it wins in
/// one ply, which every position with a mate in one does). `may_mate` must hold wherever
/// the mover has a mate: it only lets the search be skipped where there is none.
pub fn is_attack_knowing(
    pos: &Position,
    m: Move,
    may_mate: impl FnOnce(&Position) -> bool,
) -> bool {
    attack_answering_mate(pos, m, gated(may_mate))
}

/// [`is_attack`] for a caller with its own exact test of a mate in one: `mates(threat)`
/// must say whether the side to move in `threat` (the mover, to move again after `m`) has a
/// move that checkmates, as [`mates_in_one`] does.
pub fn is_attack_answering(
    pos: &Position,
    m: Move,
    mates: impl FnOnce(&mut Position) -> bool,
) -> bool {
    attack_answering_mate(pos, m, mates)
}

/// The answer to "has the mover a mate?" that looks only where `may_mate` holds.
fn gated(may_mate: impl FnOnce(&Position) -> bool) -> impl FnOnce(&mut Position) -> bool {
    |threat: &mut Position| may_mate(threat) && mates_in_one(threat)
}

/// [`is_attack`] with the threat of mate answered by `mates`: whether the mover, to move
/// again after `m` (the position it is given), has a move that mates.
fn attack_answering_mate(
    pos: &Position,
    m: Move,
    mates: impl FnOnce(&mut Position) -> bool,
) -> bool {
    let Some((after, mut threat)) = after_quiet(pos, m) else {
        return true;
    };
    let mut captures = crate::game::moves::MoveList::new();
    threat.pseudo_captures(&mut captures);
    if captures.iter().any(|&c| may_be_chased(&threat, c)) {
        let legality = threat.legality();
        let mut chase = false;
        each_chase(pos, m, &after, &threat, &captures, &legality, |_| {
            chase = true;
            false
        });
        if chase {
            return true;
        }
    }
    mates(&mut threat)
}

/// [`is_attack_knowing`] for a legal quiet move `m` that does not give check, made and
/// taken back on `pos` itself: where the move leaves no capture of a kind a chase counts,
/// no copy of the position is made. `pos` is as it was on return.
pub fn is_quiet_attack_knowing(
    pos: &mut Position,
    m: Move,
    may_mate: impl FnOnce(&Position) -> bool,
) -> bool {
    debug_assert!(!pos.gives_check(m));
    quiet_hit_knowing(pos, m, |_| false, Some((true, gated(may_mate)))) == Some(true)
}

/// Whether the legal quiet move `m` of the side to move in `pos`, which does not give
/// check, is 杀 (a threat of mate), whatever it chases: made and taken back on `pos`
/// itself, with `may_mate` as in [`is_attack_knowing`]. What the whole rule counts without
/// its clause of 捉 (a measurement: `canju diff --by-clause`).
pub fn is_quiet_mate_threat_knowing(
    pos: &mut Position,
    m: Move,
    may_mate: impl FnOnce(&Position) -> bool,
) -> bool {
    debug_assert!(!pos.gives_check(m));
    quiet_hit_knowing(pos, m, |_| false, Some((false, gated(may_mate)))) == Some(true)
}

/// What the legal quiet move `m` of the side to move in `pos` is, made once and taken back
/// on `pos` itself: `None` when it checks (`checks`, asked of the position after it, says
/// so), else whether it is 打 without checking, asked only with `attack` = (whether a
/// chase counts, `mates`), false without. `mates` answers whether the mover, to move again
/// after `m` (the position it is given, to be left as it was), has a move that mates:
/// [`mates_in_one`], or what a caller who knows more (a tablebase) answers the same. A
/// threat of mate always counts when asked. `pos` is as it was on return.
#[inline]
pub fn quiet_hit_knowing(
    pos: &mut Position,
    m: Move,
    checks: impl FnOnce(&Position) -> bool,
    attack: Option<(bool, impl FnOnce(&mut Position) -> bool)>,
) -> Option<bool> {
    debug_assert!(pos.piece_at(m.to()).is_none());
    let undo = pos.play_unchecked(m);
    if checks(pos) {
        pos.undo(m, undo);
        return None;
    }
    let Some((chases, mates)) = attack else {
        pos.undo(m, undo);
        return Some(false);
    };
    pos.pass_turn();
    if chases {
        let mut captures = crate::game::moves::MoveList::new();
        pos.pseudo_captures(&mut captures);
        if captures.iter().any(|&c| may_be_chased(pos, c)) {
            // whether a capture is new, and of a piece unprotected, needs the positions
            // before and after the move side by side
            pos.pass_turn();
            pos.undo(m, undo);
            return Some(attack_answering_mate(pos, m, mates));
        }
    }
    let attack = mates(pos);
    pos.pass_turn();
    pos.undo(m, undo);
    Some(attack)
}

/// Whether the side to move in `pos` has a move that mates (将死: a move that leaves the
/// other side no legal move without giving check is no mate), each check made and taken
/// back on `pos` itself, which is as it was on return.
pub fn mates_in_one(pos: &mut Position) -> bool {
    let moves = Moves::of(pos);
    mates_in_place(pos, &moves)
}

/// The position after `m`, and the same with the mover to move again; None when `m` checks.
fn after_quiet(pos: &Position, m: Move) -> Option<(Position, Position)> {
    let mut after = pos.clone();
    after.play_unchecked(m);
    if after.is_check() {
        return None;
    }
    let mut threat = after.clone();
    threat.pass_turn();
    Some((after, threat))
}

/// The pseudo-legal moves of the side to move, with what tells the legal ones: legality is
/// asked only of the few moves that matter (captures, checks), not of them all.
struct Moves {
    list: crate::game::moves::MoveList,
    legality: super::movegen::Legality,
}

impl Moves {
    fn of(pos: &Position) -> Moves {
        let mut list = crate::game::moves::MoveList::new();
        pos.pseudo_moves(&mut list);
        Moves {
            list,
            legality: pos.legality(),
        }
    }
}

/// Whether one of `moves`, those of the side to move in `threat`, mates.
fn threatens_mate(threat: &Position, moves: &Moves) -> bool {
    mates_in_place(&mut threat.clone(), moves)
}

/// Whether one of `moves`, those of the side to move in `pos`, mates: each check is made
/// and taken back on `pos` itself, which is as it was on return.
fn mates_in_place(pos: &mut Position, moves: &Moves) -> bool {
    moves.list.iter().any(|&t| {
        if !pos.gives_check(t) || !moves.legality.move_is_legal(pos, t) {
            return false;
        }
        let undo = pos.play_unchecked(t);
        // in check: mated when it has no legal move
        let mated = !pos.has_legal_move_knowing(true);
        pos.undo(t, undo);
        mated
    })
}

/// Whether the pseudo-legal capture `c` of the side to move in `threat` is of the kind a
/// chase counts (neither the general's nor a soldier's, and not of a soldier on its own
/// side of the river), before anything dearer is asked of it.
fn may_be_chased(threat: &Position, c: Move) -> bool {
    let (Some(attacker), Some(piece)) = (threat.piece_at(c.from()), threat.piece_at(c.to())) else {
        return false;
    };
    let uncrossed_soldier = piece.kind == Kind::Soldier && c.to().on_own_half(piece.color);
    !matches!(attacker.kind, Kind::General | Kind::Soldier) && !uncrossed_soldier
}

/// Calls `f` with each piece that the move `m` of `pos` newly chases (`after` the position
/// after it, `threat` the same with the mover to move again, `moves` its pseudo-legal moves
/// or captures at least, `legality` what tells the legal ones), until `f` returns false.
fn each_chase(
    pos: &Position,
    m: Move,
    after: &Position,
    threat: &Position,
    moves: &crate::game::moves::MoveList,
    legality: &super::movegen::Legality,
    mut f: impl FnMut(Chase) -> bool,
) {
    let mover = pos.turn();
    for &c in moves.iter() {
        if !may_be_chased(threat, c) {
            continue;
        }
        let (Some(attacker), Some(piece)) = (threat.piece_at(c.from()), threat.piece_at(c.to()))
        else {
            continue;
        };
        debug_assert_eq!(attacker.color, mover);
        if !legality.move_is_legal(threat, c) {
            continue;
        }
        // new: the same piece could not make this capture before the move
        let was = if c.from() == m.to() {
            m.from()
        } else {
            c.from()
        };
        if legal_here(pos, Move::new(was, c.to())) {
            continue;
        }
        // 兑: the target, of the attacker's kind, can take the attacker first
        if piece.kind == attacker.kind && legal_here(after, Move::new(c.to(), c.from())) {
            continue;
        }
        let reason = if !protected(threat, c) {
            ChaseReason::Unprotected
        } else if piece.kind == Kind::Chariot && matches!(attacker.kind, Kind::Horse | Kind::Cannon)
        {
            ChaseReason::Chariot
        } else {
            continue;
        };
        let go_on = f(Chase {
            from: c.from(),
            attacker,
            target: c.to(),
            piece,
            reason,
        });
        if !go_on {
            return;
        }
    }
}

/// Whether, after the capture `c` in `pos`, the captured piece's side can take back on its
/// point with a legal move (pins and the facing generals taken into account).
fn protected(pos: &Position, c: Move) -> bool {
    let mut p = pos.clone();
    p.play_unchecked(c);
    let mut captures = crate::game::moves::MoveList::new();
    p.pseudo_captures(&mut captures);
    captures
        .iter()
        .any(|&r| r.to() == c.to() && p.is_legal_pseudo(r))
}

/// Whether `m` is a legal move in `pos`, decided without generating every move.
fn legal_here(pos: &Position, m: Move) -> bool {
    pos.is_pseudo_legal(m) && pos.is_legal_pseudo(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attack(fen: &str, mv: &str) -> Attack {
        let pos: Position = fen.parse().unwrap();
        let m = crate::notation::parse_move(&pos, mv).unwrap();
        attack_of(&pos, m)
    }

    fn kind(fen: &str, mv: &str) -> AttackKind {
        attack(fen, mv).kind()
    }

    /// Over random games from the start: 将 agrees with the move generator's own check
    /// test, and every chase is a legal capture, after the move, of a piece the rules let be
    /// chased, by a piece whose threats count.
    #[test]
    fn classes_agree_with_the_rules_over_random_games() {
        let mut rand = crate::game::movegen::xorshift(0x5eed);
        let (mut chases, mut threats, mut quiet) = (0, 0, 0);
        for _ in 0..12 {
            let mut pos = Position::start();
            for _ in 0..60 {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                for &m in legal.iter() {
                    let a = attack_of(&pos, m);
                    assert_eq!(a.check, pos.gives_check(m), "{pos} {m}");
                    assert_eq!(is_attack(&pos, m), a.kind().is_attack(), "{pos} {m}");
                    // told there is no mate, it asks only for a check or a chase
                    assert_eq!(
                        is_attack_knowing(&pos, m, |_| false),
                        a.check || !a.chases.is_empty(),
                        "{pos} {m}"
                    );
                    if !a.check && pos.piece_at(m.to()).is_none() {
                        // made on the position itself, the same answers, the position kept
                        let mut here = pos.clone();
                        for mates in [false, true] {
                            assert_eq!(
                                is_quiet_attack_knowing(&mut here, m, |_| mates),
                                is_attack_knowing(&pos, m, |_| mates),
                                "{pos} {m}"
                            );
                            assert_eq!(here, pos, "{pos} {m}");
                        }
                        // the threat of mate alone, whatever the move chases
                        assert_eq!(
                            is_quiet_mate_threat_knowing(&mut here, m, |_| true),
                            a.mate_threat,
                            "{pos} {m}"
                        );
                        assert!(!is_quiet_mate_threat_knowing(&mut here, m, |_| false));
                        assert_eq!(here, pos, "{pos} {m}");
                        quiet += 1;
                    }
                    threats += usize::from(a.mate_threat);
                    let mut after = pos.clone();
                    after.play_unchecked(m);
                    after.pass_turn();
                    for c in &a.chases {
                        chases += 1;
                        assert!(
                            after.is_legal(Move::new(c.from, c.target)),
                            "{pos} {m} {c:?}"
                        );
                        assert_eq!(after.piece_at(c.target), Some(c.piece));
                        assert_eq!(c.piece.color, !pos.turn());
                        assert!(!matches!(c.attacker.kind, Kind::General | Kind::Soldier));
                        assert_ne!(c.piece.kind, Kind::General);
                        assert!(
                            c.piece.kind != Kind::Soldier || !c.target.on_own_half(c.piece.color)
                        );
                    }
                }
                let m = legal[(rand() % legal.len() as u64) as usize];
                pos.play_unchecked(m);
            }
        }
        // (the games do chase and threaten: the test is not empty)
        assert!(
            chases > 100 && threats > 0 && quiet > 1000,
            "{chases} chases, {threats} threats, {quiet} quiet moves"
        );
    }

    #[test]
    fn a_mate_in_one_is_found_and_the_position_kept() {
        // the chariot on the 8th rank shuts the general in; the other mates on the 9th
        let mut pos: Position = "4k4/R8/9/9/9/9/9/9/1R7/3K5 w".parse().unwrap();
        let before = pos.clone();
        assert!(mates_in_one(&mut pos));
        assert_eq!(pos, before);
        // one chariot alone checks, but the general steps down
        let mut pos: Position = "4k4/9/9/9/9/9/9/9/1R7/3K5 w".parse().unwrap();
        assert!(!mates_in_one(&mut pos));
    }

    #[test]
    fn a_check_is_jiang() {
        // the chariot to the general's rank
        assert_eq!(
            kind("4k4/9/9/9/9/9/9/9/9/R2K5 w", "a0a9"),
            AttackKind::Check
        );
    }

    #[test]
    fn an_unprotected_piece_attacked_anew_is_chased() {
        // the chariot turns to attack the loose horse on c5
        let a = attack("3k5/9/9/9/2n6/9/9/9/9/R3K4 w", "a0a5");
        assert_eq!(a.kind(), AttackKind::Chase);
        assert_eq!(a.chases.len(), 1);
        assert_eq!(a.chases[0].target.to_string(), "c5");
        assert_eq!(a.chases[0].from.to_string(), "a5");
        assert_eq!(a.chases[0].reason, ChaseReason::Unprotected);
        // protected by the chariot on c9 behind it: no chase
        assert_eq!(
            kind("2rk5/9/9/9/2n6/9/9/9/9/R3K4 w", "a0a5"),
            AttackKind::Idle
        );
    }

    #[test]
    fn an_attack_that_was_already_there_is_not_new() {
        // the chariot already attacked the horse along the rank; a general's step changes
        // nothing
        assert_eq!(
            kind("3k5/9/9/9/R1n6/9/9/9/9/4K4 w", "e0e1"),
            AttackKind::Idle
        );
    }

    #[test]
    fn an_uncrossed_soldier_is_not_chased_a_crossed_one_is() {
        // black's soldier on c6 stands on its own half (ranks 5-9): not counted
        assert_eq!(
            kind("3k5/9/9/2p6/9/9/9/9/9/R3K4 w", "a0a6"),
            AttackKind::Idle
        );
        // on c4 it has crossed the river: counted
        let a = attack("3k5/9/9/9/9/2p6/9/9/9/R3K4 w", "a0a4");
        assert_eq!(a.kind(), AttackKind::Chase);
        assert_eq!(a.chases[0].piece.kind, Kind::Soldier);
    }

    #[test]
    fn a_chariot_attacked_by_a_horse_counts_even_when_protected() {
        // the horse from c4 to e5 attacks the chariot on d7, which the advisor on e8 protects
        let a = attack("4k4/4a4/3r5/9/9/2N6/9/9/9/5K3 w", "c4e5");
        assert_eq!(a.kind(), AttackKind::Chase, "{a:?}");
        assert_eq!(a.chases.len(), 1, "{a:?}");
        assert_eq!(a.chases[0].piece.kind, Kind::Chariot);
        assert_eq!(a.chases[0].reason, ChaseReason::Chariot);
        // the same chariot attacked by a chariot: protected, and able to take first (兑)
        assert_eq!(
            kind("4k4/4a4/3r5/9/9/9/9/9/9/R4K3 w", "a0a7"),
            AttackKind::Idle
        );
    }

    #[test]
    fn the_generals_and_the_soldiers_threats_do_not_count() {
        // the general steps next to a loose horse: allowed on every move
        assert_eq!(
            kind("3k5/9/9/9/9/9/9/9/3n5/4K4 w", "e0e1"),
            AttackKind::Idle
        );
        // a crossed soldier steps beside a loose horse
        assert_eq!(
            kind("3k5/9/9/2n1P4/9/9/9/9/9/4K4 w", "e6d6"),
            AttackKind::Idle
        );
    }

    #[test]
    fn a_pinned_attacker_does_not_attack() {
        // the red chariot on e1 is pinned on the file by black's chariot on e8: from e2 it
        // cannot take the horse on b2 without leaving its general in check
        assert_eq!(
            kind("3k5/4r4/9/9/9/9/9/1n7/4R4/4K4 w", "e1e2"),
            AttackKind::Idle
        );
    }

    #[test]
    fn protection_that_would_face_the_generals_is_no_protection() {
        // black's general on e9 "protects" the horse on e8, but taking back there would
        // face red's general on the open e file: the horse is loose
        // (the move threatens mate too, by a9: the horse blocks its own general's flight)
        let a = attack("4k4/4n4/9/9/9/9/9/9/9/R3K4 w", "a0a8");
        assert_eq!(a.chases.len(), 1, "{a:?}");
        assert_eq!(a.chases[0].target.to_string(), "e8");
        assert_eq!(a.chases[0].reason, ChaseReason::Unprotected);
        assert_eq!(a.kind(), AttackKind::MateThreat);
    }

    #[test]
    fn an_offer_to_exchange_is_not_a_chase() {
        // chariot against a loose chariot on the same rank: 兑
        assert_eq!(
            kind("3k5/9/9/9/2r6/9/9/9/9/R3K4 w", "a0a5"),
            AttackKind::Idle
        );
    }

    #[test]
    fn a_quiet_threat_of_mate_is_sha() {
        // the chariot to h8 shuts the general on its back rank: the other goes to i9 and mates
        let a = attack("4k4/9/9/9/9/9/9/9/9/3K3RR w", "h0h8");
        assert_eq!(a.kind(), AttackKind::MateThreat, "{a:?}");
        assert!(!a.check);
        // the same chariot to h7 leaves the general rank 8: no threat
        assert_eq!(
            kind("4k4/9/9/9/9/9/9/9/9/3K3RR w", "h0h7"),
            AttackKind::Idle
        );
    }
}
