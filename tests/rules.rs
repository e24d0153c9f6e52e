//! The perpetual-check rule (asian tables) against independent means: Zielonka's recursive
//! algorithm for parity games on the whole position graph of small endgames (it shares
//! nothing with the generator's staged backward search or the verifier's sweeps but the
//! rules), hand-picked positions of each kind of cycle, and invariants over every table.

mod common;

use std::collections::HashMap;

use common::{TempDir, build_tables, canju, for_each_position};

use canju::game::material::Material;
use canju::tablebase::diff::{compare, rule_line};
use canju::tablebase::value::code;
use canju::tablebase::{Rules, Tablebase, Value, verify};
use canju::{Color, Position};

/// The position graph of a material and everything it falls into, both orientations.
struct Graph {
    turn: Vec<Color>,
    in_check: Vec<bool>,
    off: Vec<u32>,
    succ: Vec<u32>,
    keys: HashMap<u64, u32>,
}

fn graph(material: &Material) -> Graph {
    let mut materials = Vec::new();
    for m in material.build_order() {
        materials.push(m);
        materials.push(m.flipped());
    }
    let mut keys = HashMap::new();
    let (mut turn, mut in_check) = (Vec::new(), Vec::new());
    for m in &materials {
        for_each_position(m, &mut |p| {
            let n = keys.len() as u32;
            if let std::collections::hash_map::Entry::Vacant(e) = keys.entry(p.key()) {
                e.insert(n);
                turn.push(p.turn());
                in_check.push(p.is_check());
            }
        });
    }
    let mut succ = Vec::new();
    let mut off = vec![0u32; keys.len() + 1];
    let mut filled = vec![false; keys.len()];
    let mut lists: Vec<(u32, Vec<u32>)> = Vec::new();
    for m in &materials {
        for_each_position(m, &mut |p| {
            let i = keys[&p.key()];
            if filled[i as usize] {
                return;
            }
            filled[i as usize] = true;
            let kids = p
                .legal_moves()
                .iter()
                .map(|&mv| {
                    let mut c = p.clone();
                    c.play_unchecked(mv);
                    keys[&c.key()]
                })
                .collect();
            lists.push((i, kids));
        });
    }
    lists.sort_by_key(|l| l.0);
    for (i, kids) in lists {
        succ.extend(kids);
        off[i as usize + 1] = succ.len() as u32;
    }
    Graph {
        turn,
        in_check,
        off,
        succ,
        keys,
    }
}

/// A parity game for one winner W: W (player 0) wins a play when the highest priority
/// seen infinitely often is even. A position reached by a move of the loser L that does
/// not check has priority 3, one reached by a move of W that does not check 2, one reached
/// by a check 1; a position without moves loops on itself, won by the side not to move
/// (priority 2 if L is to move, 3 if W is). So W wins by mate, or when from some point on L
/// checks on every move while W does not.
struct Game<'a> {
    g: &'a Graph,
    winner: Color,
    pred_off: Vec<u32>,
    pred: Vec<u32>,
}

impl Game<'_> {
    fn new(g: &Graph, winner: Color) -> Game<'_> {
        let n = g.turn.len();
        let mut count = vec![0u32; n + 1];
        for &s in &g.succ {
            count[s as usize + 1] += 1;
        }
        for i in 0..n {
            count[i + 1] += count[i];
        }
        let mut pred = vec![0u32; g.succ.len()];
        let mut at = count.clone();
        for v in 0..n {
            for &s in self_succ(g, v) {
                pred[at[s as usize] as usize] = v as u32;
                at[s as usize] += 1;
            }
        }
        Game {
            g,
            winner,
            pred_off: count,
            pred,
        }
    }

    fn owner(&self, v: usize) -> usize {
        (self.g.turn[v] != self.winner) as usize
    }

    fn priority(&self, v: usize) -> u8 {
        let w_to_move = self.g.turn[v] == self.winner;
        if self_succ(self.g, v).is_empty() {
            return if w_to_move { 3 } else { 2 };
        }
        match (self.g.in_check[v], w_to_move) {
            (true, _) => 1,
            (false, true) => 3,
            (false, false) => 2,
        }
    }

    /// The successors in the subgame; a position without moves loops on itself.
    fn succ(&self, v: usize, game: &[bool]) -> Vec<usize> {
        let s = self_succ(self.g, v);
        if s.is_empty() {
            return vec![v];
        }
        s.iter().map(|&x| x as usize).filter(|&x| game[x]).collect()
    }

    /// The positions of the subgame from which `player` forces a visit to `target`.
    fn attractor(&self, game: &[bool], target: &[bool], player: usize) -> Vec<bool> {
        let n = game.len();
        let mut attr = target.to_vec();
        let mut left: Vec<usize> = (0..n)
            .map(|v| if game[v] { self.succ(v, game).len() } else { 0 })
            .collect();
        let mut queue: Vec<usize> = (0..n).filter(|&v| attr[v]).collect();
        while let Some(u) = queue.pop() {
            let preds = &self.pred[self.pred_off[u] as usize..self.pred_off[u + 1] as usize];
            for &p in preds {
                let p = p as usize;
                if !game[p] || attr[p] {
                    continue;
                }
                if self.owner(p) == player {
                    attr[p] = true;
                    queue.push(p);
                } else {
                    left[p] -= 1;
                    if left[p] == 0 {
                        attr[p] = true;
                        queue.push(p);
                    }
                }
            }
        }
        attr
    }

    /// Zielonka's algorithm: the winning regions of player 0 and player 1.
    fn solve(&self, game: &[bool]) -> [Vec<bool>; 2] {
        let n = game.len();
        let mut game = game.to_vec();
        let mut won = [vec![false; n], vec![false; n]];
        loop {
            let Some(d) = (0..n).filter(|&v| game[v]).map(|v| self.priority(v)).max() else {
                return won;
            };
            let p = (d % 2) as usize;
            let top: Vec<bool> = (0..n).map(|v| game[v] && self.priority(v) == d).collect();
            let a = self.attractor(&game, &top, p);
            let rest: Vec<bool> = (0..n).map(|v| game[v] && !a[v]).collect();
            let sub = self.solve(&rest);
            if !sub[1 - p].iter().any(|&x| x) {
                for v in 0..n {
                    won[p][v] |= game[v];
                }
                return won;
            }
            let b = self.attractor(&game, &sub[1 - p], 1 - p);
            for v in 0..n {
                if b[v] {
                    won[1 - p][v] = true;
                    game[v] = false;
                }
            }
        }
    }
}

fn self_succ(g: &Graph, v: usize) -> &[u32] {
    &g.succ[g.off[v] as usize..g.off[v + 1] as usize]
}

/// The verdict without the distance, and whether it rests on the rule.
fn kind(v: Value) -> (&'static str, bool) {
    (v.verdict(), v.by_rule())
}

fn build(dir: &TempDir, sig: &str, rules: Rules) -> Tablebase {
    let tb = Tablebase::with_rules(&dir.0, rules);
    build_tables(&tb, sig);
    tb
}

/// Checks the asian table of `sig` (and the baseline's mates) against Zielonka's solution
/// on every position; returns how many are decided by the rule.
fn zielonka_agrees(sig: &str) -> u32 {
    let start = std::time::Instant::now();
    let dir = TempDir::new(&format!("zielonka-{sig}"));
    let baseline = build(&dir, sig, Rules::None);
    let asian = build(&dir, sig, Rules::Asian);
    let m: Material = sig.parse().unwrap();
    let g = graph(&m);
    let all = vec![true; g.turn.len()];
    let won: Vec<Vec<bool>> = Color::ALL
        .iter()
        .map(|&w| Game::new(&g, w).solve(&all)[0].clone())
        .collect();
    let mut positions = 0;
    let mut by_rule = 0;
    for_each_position(&m, &mut |p| {
        let i = g.keys[&p.key()] as usize;
        let mate = baseline.probe(&p).unwrap();
        let stm = p.turn().index();
        let expected = if won[stm][i] {
            ("win", !mate.is_win())
        } else if won[1 - stm][i] {
            ("loss", !mate.is_loss())
        } else {
            ("draw", false)
        };
        assert!(!(won[0][i] && won[1][i]), "{sig}: both sides win {p}");
        let got = asian.probe(&p).unwrap();
        assert_eq!(kind(got), expected, "{sig}: {p} (baseline {mate})");
        if !got.by_rule() {
            assert_eq!(got, mate, "{sig}: a mate changed under the rule: {p}");
        }
        positions += 1;
        by_rule += got.by_rule() as u32;
    });
    assert!(positions > 100_000, "{sig}: {positions}");
    eprintln!(
        "{sig}: {positions} positions, {by_rule} by rule, {:.1} s",
        start.elapsed().as_secs_f64()
    );
    by_rule
}

#[test]
fn asian_tables_match_zielonka_on_small_endgames() {
    let changed: Vec<u32> = ["KRKP", "KRKN", "KRKC"]
        .iter()
        .map(|sig| zielonka_agrees(sig))
        .collect();
    // 车对马 is where a lone horse's perpetual check decides (车对卒 and 车对炮 do not change)
    assert!(changed[1] > 0, "{changed:?}");
}

/// With an advisor, the cannon has a screen of its own and checks, and the rule decides
/// some positions of 车对炮士 (3.6 million positions: the largest graph here, about 90 s).
#[test]
fn asian_tables_match_zielonka_with_an_advisor() {
    assert!(zielonka_agrees("KRKCA") > 0);
}

fn pos(fen: &str) -> Position {
    fen.parse().unwrap()
}

/// Tables of KRKN in both rule sets, built once per test that needs them.
fn krkn() -> (TempDir, Tablebase, Tablebase) {
    let dir = TempDir::new("rules-krkn");
    let b = build(&dir, "KRKN", Rules::None);
    let a = build(&dir, "KRKN", Rules::Asian);
    (dir, b, a)
}

#[test]
fn a_perpetual_check_as_the_only_resource_loses_by_rule() {
    let (_dir, baseline, asian) = krkn();
    // black's horse can only check: every other move loses the horse or walks into mate
    let p = pos("9/9/4k4/9/9/9/9/3n5/9/R2K5 b - - 0 1");
    assert_eq!(baseline.probe(&p).unwrap(), Value::Draw);
    assert_eq!(asian.probe(&p).unwrap(), Value::RuleLoss(1));
    // every move that holds the baseline draw checks
    for &mv in p.legal_moves().iter() {
        let mut c = p.clone();
        c.play_unchecked(mv);
        if baseline.probe(&c).unwrap() == Value::Draw {
            assert!(c.is_check(), "{mv} holds without checking");
        }
    }
    // best play repeats with black checking on every move of the cycle, red never
    let line = rule_line(&asian, &p, 40).unwrap();
    let from = line.repeats_from.expect("a repetition");
    for (k, &check) in line.checks.iter().enumerate().skip(from) {
        let black_moved = (k % 2 == 0) == (p.turn() == Color::Black);
        assert_eq!(check, black_moved, "ply {k}: {:?}", line.moves);
    }
    // the side that gets out of the checks wins by rule
    let w = pos("9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1");
    assert_eq!(baseline.probe(&w).unwrap(), Value::Draw);
    assert_eq!(asian.probe(&w).unwrap(), Value::RuleWin(1));
}

#[test]
fn one_check_and_one_idle_move_stays_a_draw() {
    let (_dir, baseline, asian) = krkn();
    // black must check now (h0f1), but after 帅六进一 the horse can go back quietly (f1d2)
    // and the cycle of one check and one idle move is allowed
    let p = pos("9/9/4k4/9/9/9/9/3R5/9/3K3n1 b - - 0 1");
    assert_eq!(baseline.probe(&p).unwrap(), Value::Draw);
    assert_eq!(asian.probe(&p).unwrap(), Value::Draw);
    let mut q = p.clone();
    for text in ["h0f1", "d0d1", "f1d2"] {
        let mv = canju::notation::parse_move(&q, text).unwrap();
        q.play_unchecked(mv);
    }
    assert!(!q.is_check(), "f1d2 is the idle move");
    assert_eq!(asian.probe(&q).unwrap(), Value::Draw);
    // every quiet (non-checking) move of black from p loses: it had to check first
    for &mv in p.legal_moves().iter() {
        let mut c = p.clone();
        c.play_unchecked(mv);
        if !c.is_check() {
            assert!(asian.probe(&c).unwrap().is_win(), "{mv}");
        }
    }
}

#[test]
fn rule_verdicts_only_add_to_the_mates_and_verify() {
    // asian wins contain baseline wins for both sides, every mate keeps its distance
    // (compare fails otherwise), and the verifier's fixpoint agrees with the generator
    let dir = TempDir::new("rules-family");
    for sig in ["KRKNA", "KCPKA", "KNPKA"] {
        let baseline = build(&dir, sig, Rules::None);
        let asian = build(&dir, sig, Rules::Asian);
        let m: Material = sig.parse().unwrap();
        for sub in m.build_order() {
            let b = baseline.table(sub).unwrap();
            let a = asian.table(sub).unwrap();
            let d = compare(&b, &a, 0).unwrap_or_else(|e| panic!("{sub}: {e}"));
            for (c, s) in Color::ALL.iter().zip(&d.sides) {
                let h = &a.header().sides[c.index()];
                assert!(s.draw_to_win <= h.win && s.draw_to_loss <= h.loss, "{sub}");
            }
            verify::verify(&a, &asian, &|_, _| {}).unwrap_or_else(|e| panic!("{sub}: {e}"));
        }
    }
}

#[test]
fn the_verifier_catches_a_wrong_level() {
    // every verdict by rule at the highest level moved one level up: each entry still
    // agrees with its successors one ply deep, so only the fixpoint can tell
    let dir = TempDir::new("rules-tamper");
    let asian = build(&dir, "KRKN", Rules::Asian);
    let t = asian.table("KRKN".parse().unwrap()).unwrap();
    verify::verify(&t, &asian, &|_, _| {}).unwrap();
    let top = Color::ALL
        .iter()
        .flat_map(|&c| t.checked_side(c).unwrap().iter().copied())
        .filter(|&c| code::is_rule(c))
        .map(code::rule_level)
        .max()
        .expect("verdicts by rule");
    drop(t);
    drop(asian);
    let path = dir.0.join("KRKN.asian.ctb");
    common::rewrite_codes(&path, "KRKN", &|_, _, c| {
        if code::is_rule(c) && code::rule_level(c) == top {
            code::rule(top + 1, code::is_rule_win(c))
        } else {
            c
        }
    });
    let asian = Tablebase::with_rules(&dir.0, Rules::Asian);
    let t = asian.table("KRKN".parse().unwrap()).unwrap();
    let err = verify::verify(&t, &asian, &|_, _| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains(&format!("at level {top}")), "{err}");
}

#[test]
fn rule_sets_sit_side_by_side_and_say_which_they_are() {
    let dir = TempDir::new("rules-cli");
    for rules in ["none", "asian"] {
        let out = canju(&["gen", "KRKN", "--dir", dir.arg(), "--rules", rules]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(text.contains(&format!("rules {rules}")), "{text}");
    }
    assert!(dir.0.join("KRKN.ctb").is_file());
    assert!(dir.0.join("KRKN.asian.ctb").is_file());
    let fen = "9/9/4k4/9/9/9/9/3n5/9/R2K5 b - - 0 1";
    let probe = |rules: &str| {
        json(&[
            "probe",
            "--fen",
            fen,
            "--dir",
            dir.arg(),
            "--rules",
            rules,
            "--json",
        ])
    };
    // a command's JSON report of KRKN under the rule
    let asian_json = |command: &str| {
        json(&[
            command,
            "KRKN",
            "--dir",
            dir.arg(),
            "--rules",
            "asian",
            "--json",
        ])
    };
    let none = probe("none");
    let asian = probe("asian");
    assert_eq!(none["rules"], "none");
    assert_eq!(none["verdict"], "draw");
    assert_eq!(asian["rules"], "asian");
    assert_eq!(asian["verdict"], "loss");
    assert_eq!(asian["by_rule"], 1);
    // stats counts the verdicts by rule; verify checks them
    let stats = asian_json("stats");
    assert!(stats["black_to_move"]["loss_by_rule"].as_u64().unwrap() > 0);
    let out = canju(&["verify", "KRKN", "--dir", dir.arg(), "--rules", "asian"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // diff: counts and a line that shows the perpetual check
    let out = canju(&["diff", "KRKN", "--dir", dir.arg(), "--examples", "1"]);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("checks on every move of the cycle (长将)"),
        "{text}"
    );
    let d = json(&["diff", "KRKN", "--dir", dir.arg(), "--json"]);
    assert_eq!(
        d["black_to_move"]["draw_to_loss"].as_u64(),
        stats["black_to_move"]["loss_by_rule"].as_u64()
    );
    // theory counts the verdicts by rule as wins and losses, like stats
    let theory = asian_json("theory");
    assert_eq!(theory["rules"], "asian");
    for (k, side) in ["red_to_move", "black_to_move"].iter().enumerate() {
        let t = &theory["sides"][k];
        let s = &stats[side];
        assert_eq!(t["draw"], s["draw"], "{side}");
        // the stronger side's wins: red's wins with red to move, black's losses with black
        let strong = if k == 0 { &s["win"] } else { &s["loss"] };
        assert_eq!(&t["win"], strong, "{side}");
    }
    // a plan builds the asian files with asian jobs
    let out = canju(&["plan", "KRKN", "--dir", dir.arg(), "--rules", "asian"]);
    let plan = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(plan.contains("all: $(DIR)/KRKN.asian.ctb"), "{plan}");
    assert!(
        plan.contains("gen KRKN --no-deps --dir") && plan.contains("--rules asian"),
        "{plan}"
    );
    // bad input: one line, non-zero
    for args in [
        vec!["gen", "KRKN", "--dir", dir.arg(), "--rules", "chinese"],
        vec!["stats", "KRKNA", "--dir", dir.arg(), "--rules", "asian"],
        vec!["diff", "KRKN", "--dir", dir.arg(), "--examples", "1000"],
    ] {
        let out = canju(&args);
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
}

/// Runs canju, which must succeed, and reads its standard output as JSON.
fn json(args: &[&str]) -> serde_json::Value {
    let out = canju(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The positions whose win or loss by mate needs more than `limit` plies to the next capture
/// or mate, by rounds over the position graph: S(k) holds the positions that reach a
/// capture or mate within k plies, the winner keeping its win.
fn over_the_limit(tb: &Tablebase, m: &Material, limit: u32) -> HashMap<u64, bool> {
    let mut positions = Vec::new();
    for_each_position(m, &mut |p| positions.push(p));
    let index: HashMap<u64, usize> = positions
        .iter()
        .enumerate()
        .map(|(i, p)| (p.key(), i))
        .collect();
    struct Node {
        value: Value,
        winning_capture: bool,
        quiet: Vec<(usize, bool)>,
        any_move: bool,
    }
    let nodes: Vec<Node> = positions
        .iter()
        .map(|p| {
            let value = tb.probe(p).unwrap();
            let mut n = Node {
                value,
                winning_capture: false,
                quiet: Vec::new(),
                any_move: false,
            };
            for &mv in p.legal_moves().iter() {
                n.any_move = true;
                let mut c = p.clone();
                c.play_unchecked(mv);
                let cv = tb.probe(&c).unwrap();
                if p.piece_at(mv.to()).is_some() {
                    n.winning_capture |= cv.for_mover().is_win();
                } else {
                    n.quiet.push((index[&c.key()], cv.for_mover().is_win()));
                }
            }
            n
        })
        .collect();
    let mut within = vec![false; nodes.len()];
    for k in 0..=limit {
        within = nodes
            .iter()
            .map(|n| match n.value {
                Value::Win(_) => {
                    k >= 1
                        && (n.winning_capture || n.quiet.iter().any(|&(c, wins)| wins && within[c]))
                }
                Value::Loss(_) => {
                    !n.any_move || (k >= 1 && n.quiet.iter().all(|&(c, _)| within[c]))
                }
                _ => false,
            })
            .collect();
    }
    positions
        .iter()
        .zip(&nodes)
        .zip(&within)
        .map(|((p, n), &w)| (p.key(), n.value.plies().is_some() && !w))
        .collect()
}

#[test]
fn move_limit_flags_match_a_count_by_rounds() {
    use canju::tablebase::generate::conversion_flags;
    use canju::tablebase::probe::placement;
    let dir = TempDir::new("limit");
    let tb = Tablebase::new(&dir.0);
    for (sig, limit) in [("KNKA", 9), ("KNKA", 25), ("KRKAA", 7), ("KCPK", 11)] {
        build_tables(&tb, sig);
        let m: Material = sig.parse().unwrap();
        let table = tb.table(m).unwrap();
        let flags = conversion_flags(&table, &tb, limit).unwrap();
        let truth = over_the_limit(&tb, &m, limit);
        let (mut over, mut within) = (0, 0);
        for_each_position(&m, &mut |p| {
            let pl = placement(&p).unwrap();
            let n = table.layout().pieces().len();
            let i = table.layout().index(&pl.squares[..n]);
            let got = flags.over(pl.turn, i);
            assert_eq!(got, truth[&p.key()], "{sig}, limit {limit}: {p}");
            if got {
                over += 1;
            } else if tb.probe(&p).unwrap().plies().is_some() {
                within += 1;
            }
        });
        assert!(
            over > 0 && within > 0,
            "{sig} {limit}: {over} over, {within} within"
        );
    }
}

#[test]
fn move_limit_flags_are_kept_checked_and_recomputed_when_damaged() {
    use canju::tablebase::limit::{flags, flags_path};
    let dir = TempDir::new("limit-file");
    let tb = Tablebase::new(&dir.0);
    build_tables(&tb, "KNKA");
    let table = tb.table("KNKA".parse().unwrap()).unwrap();
    let first = flags(&table, &tb).unwrap();
    let path = flags_path(&table);
    let good = std::fs::read(&path).unwrap();
    // every byte is checked: a damaged file is recomputed and rewritten, never trusted
    for at in [0, 20, good.len() / 2, good.len() - 1] {
        let mut bad = good.clone();
        bad[at] ^= 0x40;
        std::fs::write(&path, &bad).unwrap();
        let again = flags(&table, &tb).unwrap();
        assert_eq!(again.counts, first.counts);
        assert_eq!(std::fs::read(&path).unwrap(), good, "byte {at}");
    }
    std::fs::write(&path, &good[..good.len() - 3]).unwrap();
    flags(&table, &tb).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), good);
    // stats reports the counts (none here: no mate is longer than the limit)
    let out = canju(&[
        "stats",
        "KNKA",
        "--dir",
        dir.arg(),
        "--json",
        "--rules",
        "none",
    ]);
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stats["red_to_move"]["win_beyond_move_limit"], 0);
    assert_eq!(stats["black_to_move"]["loss_beyond_move_limit"], 0);
}
