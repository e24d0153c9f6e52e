//! `canju puzzle list | show | check`.

use std::path::PathBuf;

use canju::notation::{self, Notation, Style};
use canju::puzzle::{self, Feedback, Judge, Puzzle};
use canju::tablebase::{Rules, Tablebase};
use canju::{Move, Position};

use super::tb::table_dir;
use super::{CliError, CliResult};

/// The collections: `--puzzles DIR` (every `*.toml` in it), else the built-in ones.
pub fn collections(dir: &Option<PathBuf>) -> Result<Vec<Puzzle>, CliError> {
    let r = match dir {
        Some(d) => puzzle::load_dir(d),
        None => puzzle::load_builtin(),
    };
    r.map_err(|e| CliError {
        code: 1,
        message: e.to_string(),
    })
}

fn find<'a>(all: &'a [Puzzle], id: &str) -> Result<&'a Puzzle, CliError> {
    all.iter().find(|p| p.entry.id == id).ok_or_else(|| {
        CliError::input(format!(
            "no puzzle '{id}' (`canju puzzle list` shows the {} there are)",
            all.len()
        ))
    })
}

#[derive(serde::Serialize)]
pub struct ListJson<'a> {
    id: &'a str,
    title: &'a str,
    collection: &'a str,
    source: &'a str,
    fen: &'a str,
    goal: &'a str,
    moves: Option<u32>,
    /// 连将杀: every move of the player's must give check.
    checks: bool,
    line: Vec<String>,
    tags: &'a [String],
    difficulty: u8,
}

/// A puzzle's recorded result: "solved", "failed" or none.
pub fn progress_mark(r: Option<&puzzle::progress::Record>) -> Option<&'static str> {
    match r {
        Some(r) if r.solved => Some("solved"),
        Some(r) if r.failed > 0 => Some("failed"),
        _ => None,
    }
}

/// A puzzle as `puzzle list --json` and the server show it.
pub fn list_json(p: &Puzzle) -> ListJson<'_> {
    ListJson {
        id: &p.entry.id,
        title: &p.entry.title,
        collection: &p.collection,
        source: &p.entry.source,
        fen: &p.entry.fen,
        goal: &p.entry.goal,
        moves: p.entry.moves,
        checks: p.entry.checks,
        line: p.line.iter().map(|m| m.to_string()).collect(),
        tags: &p.entry.tags,
        difficulty: p.entry.difficulty,
    }
}

pub fn list(
    dir: &Option<PathBuf>,
    tag: &Option<String>,
    collection: &Option<String>,
    json: bool,
) -> CliResult {
    let all = collections(dir)?;
    let chosen: Vec<&Puzzle> = all
        .iter()
        .filter(|p| tag.as_ref().is_none_or(|t| p.entry.tags.contains(t)))
        .filter(|p| collection.as_ref().is_none_or(|c| &p.collection == c))
        .collect();
    let (_, progress) = progress()?;
    if json {
        // each puzzle as the server lists it, with its recorded progress
        let out: Vec<serde_json::Value> = chosen
            .iter()
            .map(|p| {
                let mut j = serde_json::to_value(list_json(p)).map_err(CliError::input)?;
                j["progress"] = serde_json::json!(progress_mark(progress.get(&p.entry.id)));
                Ok(j)
            })
            .collect::<Result<_, CliError>>()?;
        super::print_json(&out)?;
        return Ok(());
    }
    for p in &chosen {
        let mark = progress_mark(progress.get(&p.entry.id)).unwrap_or("-");
        let stip = p.entry.moves.map_or(String::new(), |n| format!(" in {n}"));
        outln!(
            "{:<12} {:<6} {}{stip}  {}  ★{}  {}",
            p.entry.id,
            mark,
            p.goal,
            p.entry.title,
            p.entry.difficulty,
            p.entry.tags.join(" ")
        );
    }
    if chosen.is_empty() {
        outln!("no puzzle matches");
    }
    let solved = chosen
        .iter()
        .filter(|p| progress.get(&p.entry.id).is_some_and(|r| r.solved))
        .count();
    outln!(
        "{} puzzle{}, {solved} solved; streak {}",
        chosen.len(),
        if chosen.len() == 1 { "" } else { "s" },
        progress.streak
    );
    Ok(())
}

pub fn show(dir: &Option<PathBuf>, id: &str) -> CliResult {
    let all = collections(dir)?;
    let p = find(&all, id)?;
    out!(
        "{}",
        canju::render::terminal::board(&p.position, super::board::board_style(false))
    );
    outln!("{}", p.entry.fen);
    outln!("{} · {} ({})", p.entry.id, p.entry.title, p.collection);
    outln!("goal: {}", p.goal_text());
    outln!("source: {}", p.entry.source);
    outln!(
        "tags: {}  difficulty: {}",
        p.entry.tags.join(" "),
        p.entry.difficulty
    );
    Ok(())
}

#[derive(serde::Serialize)]
pub struct CheckedMove {
    #[serde(rename = "move")]
    mv: String,
    iccs: String,
    /// For a good move that is not the best: how many moves slower the win is.
    #[serde(skip_serializing_if = "Option::is_none")]
    slower: Option<u32>,
    by: &'static str,
    feedback: &'static str,
    /// Why a mistake lost the goal, when the perpetual-check rule is the reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'static str>,
    plies_left: u32,
}

#[derive(serde::Serialize)]
pub struct CheckJson {
    id: String,
    /// The rule set of the tables that judged the moves.
    rules: &'static str,
    solved: bool,
    moves: Vec<CheckedMove>,
    refutation: Option<String>,
}

/// `canju puzzle check ID MOVE...`: the player's moves alone (canju answers for the
/// defender) or the full line with the defender's moves (any legal defence is accepted).
pub fn check(
    dir: &Option<PathBuf>,
    tables: &Option<PathBuf>,
    id: &str,
    moves: &[String],
    json: bool,
    rules: Rules,
) -> CliResult {
    let all = collections(dir)?;
    let p = find(&all, id)?;
    let tb = Tablebase::with_rules(table_dir(tables)?, rules);
    ensure_tables(p, &tb)?;
    let c = judge_moves(p, &tb, &Judge::for_puzzle(Some(&tb), p), moves)?;
    let j = &c.json;
    if json {
        super::print_json(j)?;
    } else {
        for (m, slower) in j.moves.iter().zip(&c.slowers) {
            let detail = match slower {
                Some(n) => format!(
                    "good: still winning, {n} move{} slower than the best",
                    if *n == 1 { "" } else { "s" }
                ),
                None => match m.reason {
                    Some(reason) => format!("{}: {reason}", m.feedback),
                    None => m.feedback.to_string(),
                },
            };
            let width: usize = m.mv.chars().map(|c| if c.is_ascii() { 1 } else { 2 }).sum();
            let pad = " ".repeat(10usize.saturating_sub(width));
            outln!("{:<8} {}{pad}{detail}", m.by, m.mv);
        }
        if let Some(r) = &j.refutation {
            outln!("refutation: {r}");
        }
        if j.solved {
            outln!("solved: {} ({}; rules {})", p.entry.id, p.goal, tb.rules());
        } else if !c.failed {
            outln!("not solved yet: the line stops before the goal is reached");
        }
    }
    if j.solved {
        Ok(())
    } else {
        Err(CliError {
            code: 1,
            message: if c.failed {
                format!(
                    "{}: {} loses the goal{}",
                    p.entry.id,
                    c.last_move,
                    j.refutation
                        .as_ref()
                        .map_or(String::new(), |r| format!("; refutation: {r}"))
                )
            } else {
                format!("{}: not solved: the line ends before the goal", p.entry.id)
            },
        })
    }
}

/// A puzzle's given moves judged against perfect play.
pub struct Checked {
    /// What `puzzle check --json` (and the server) answers.
    pub json: CheckJson,
    /// For each move: how many moves slower than the best, when it is good but not best.
    pub slowers: Vec<Option<u32>>,
    /// A move of the player lost the goal.
    pub failed: bool,
    pub last_move: String,
}

/// Judges the given moves of a puzzle (the player's alone, or the whole line with the
/// defender's) against perfect play.
pub fn judge_moves(
    p: &Puzzle,
    tb: &Tablebase,
    judge: &Judge,
    moves: &[String],
) -> Result<Checked, CliError> {
    let fail = |e: puzzle::PuzzleError| CliError {
        code: 1,
        message: e.to_string(),
    };
    let player = p.goal.side;
    let mut pos: Position = p.position.clone();
    let mut left = p.budget();
    let mut out = Vec::new();
    let mut slowers: Vec<Option<u32>> = Vec::new();
    let mut refutation: Option<(Position, Move)> = None;
    let mut given = moves.iter().peekable();
    let style = Style::default();
    let text = |pos: &Position, m: Move| notation::format_move(pos, m, Notation::Chinese, style);
    let mut failed = false;
    while let Some(t) = given.next() {
        // the player's move
        let m = notation::parse_move(&pos, t).map_err(CliError::input)?;
        let f = judge.judge(&pos, m, p.goal, left).map_err(fail)?;
        slowers.push(match f {
            Feedback::Good { slower } => Some(slower),
            _ => None,
        });
        let mut child = pos.clone();
        child.play_unchecked(m);
        let reason = if f == Feedback::Mistake {
            judge
                .rule_reason(&child, p.goal, left.saturating_sub(1))
                .map_err(fail)?
        } else {
            None
        };
        out.push(CheckedMove {
            mv: text(&pos, m),
            iccs: m.to_string(),
            slower: match f {
                Feedback::Good { slower } => Some(slower),
                _ => None,
            },
            by: "player",
            feedback: f.name(),
            reason,
            plies_left: left,
        });
        pos.play_unchecked(m);
        left = left.saturating_sub(1);
        if f == Feedback::Mistake {
            if let Some(r) = judge.refutation(&pos, player, left).map_err(fail)? {
                refutation = Some((pos.clone(), r));
            }
            failed = true;
            break;
        }
        if pos.legal_moves().is_empty() {
            break;
        }
        // the defender's move: the next given one if it is legal here, else canju's
        let next_is_defence = given
            .peek()
            .is_some_and(|t| notation::parse_move(&pos, t).is_ok());
        let d = if next_is_defence {
            let t = given.next().expect("peeked");
            notation::parse_move(&pos, t).expect("checked")
        } else {
            match judge.defence(&pos, player, left).map_err(fail)? {
                Some(d) => d,
                None => break,
            }
        };
        let best = judge.defence(&pos, player, left).map_err(fail)?;
        slowers.push(None);
        out.push(CheckedMove {
            mv: text(&pos, d),
            iccs: d.to_string(),
            slower: None,
            by: "defender",
            feedback: if Some(d) == best { "best" } else { "good" },
            reason: None,
            plies_left: left,
        });
        pos.play_unchecked(d);
        left = left.saturating_sub(1);
    }
    let solved = !failed
        && if p.goal.win {
            pos.legal_moves().is_empty() && pos.turn() != player
        } else {
            // every ply played, the player's and the defence's, against the draw's length
            out.len() as u32 >= p.draw_plies()
        };
    let refutation_text = refutation.as_ref().map(|(pos, m)| text(pos, *m));
    let last_move = out.last().map_or(String::new(), |m| m.mv.clone());
    Ok(Checked {
        json: CheckJson {
            id: p.entry.id.clone(),
            rules: tb.rules().name(),
            solved,
            moves: out,
            refutation: refutation_text,
        },
        slowers,
        failed,
        last_move,
    })
}

/// The progress file, read (a damaged one is reported on standard error and kept aside).
pub fn progress() -> Result<(Option<PathBuf>, puzzle::progress::Progress), CliError> {
    let Some(path) = puzzle::progress::default_path() else {
        return Ok((None, Default::default()));
    };
    let (p, warning) = puzzle::progress::load(&path).map_err(|e| CliError {
        code: 1,
        message: e,
    })?;
    if let Some(w) = warning {
        errln!("canju: warning: {w}");
    }
    Ok((Some(path), p))
}

/// Builds the tables a puzzle within table reach needs, when they are missing: those
/// without a stipulation (long table wins) and draws. A win within a stipulation is the
/// solver's, with tables only where they are already built.
fn ensure_tables(p: &Puzzle, tb: &Tablebase) -> Result<(), CliError> {
    if !p.in_table_reach() || (p.goal.win && p.entry.moves.is_some()) {
        return Ok(());
    }
    let m = canju::material::Material::of(&p.position).canonical();
    if tb.path_of(&m).exists() {
        return Ok(());
    }
    // on standard error: standard output may be a JSON report
    errln!(
        "building the tables of {m} ({}, rules {}) first",
        m.chinese(),
        tb.rules()
    );
    super::tb::generate_quietly(m, tb, None).map(|_| ())
}

/// `canju puzzle play [ID]`: the puzzle, or the next one to do (failed ones first, then
/// unsolved), played from standard input; the attempt is recorded.
pub fn play_cmd(
    dir: &Option<PathBuf>,
    tables: &Option<PathBuf>,
    id: &Option<String>,
    rules: Rules,
) -> CliResult {
    let all = collections(dir)?;
    let (path, progress) = progress()?;
    let p = match id {
        Some(id) => find(&all, id)?,
        None => all
            .iter()
            .find(|p| {
                progress
                    .get(&p.entry.id)
                    .is_some_and(|r| !r.solved && r.failed > 0)
            })
            .or_else(|| {
                all.iter()
                    .find(|p| progress.get(&p.entry.id).is_none_or(|r| !r.solved))
            })
            .ok_or_else(|| {
                CliError::input("every puzzle is solved (`canju puzzle reset` starts over)")
            })?,
    };
    let tb = Tablebase::with_rules(table_dir(tables)?, rules);
    ensure_tables(p, &tb)?;
    let judge = Judge::for_puzzle(Some(&tb), p);
    let outcome = super::play::play(p, &judge)?;
    if outcome != super::play::Outcome::Quit {
        let solved = outcome == super::play::Outcome::Solved;
        if let Some(path) = path {
            // re-read under the lock: another terminal or the page may have recorded since
            let (_, warning) = puzzle::progress::update(&path, |pr| pr.record(&p.entry.id, solved))
                .map_err(|e| CliError {
                    code: 1,
                    message: e,
                })?;
            if let Some(w) = warning {
                errln!("canju: warning: {w}");
            }
        }
    }
    Ok(())
}

/// `canju puzzle reset`: forgets the progress.
pub fn reset() -> CliResult {
    let Some(path) = puzzle::progress::default_path() else {
        return Err(CliError::input("no data directory: set CANJU_HOME"));
    };
    let removed = canju::files::check_writable(&path).and_then(|()| std::fs::remove_file(&path));
    match removed {
        Ok(()) => outln!("progress cleared ({})", path.display()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => outln!("no progress recorded yet"),
        Err(e) => {
            return Err(CliError {
                code: 1,
                message: format!(
                    "{}: {}",
                    path.display(),
                    canju::tablebase::format::io_message(&e)
                ),
            });
        }
    }
    Ok(())
}

pub struct TrainArgs<'a> {
    pub material: &'a str,
    pub seed: Option<u64>,
    pub moves: &'a Option<String>,
    pub side: &'a Option<String>,
    pub goal: &'a Option<String>,
    pub dir: &'a Option<PathBuf>,
    pub rules: Rules,
}

/// `canju train SIG`: a random position from a table (built first when missing), played as
/// a puzzle.
pub fn train(a: TrainArgs) -> CliResult {
    use rand::SeedableRng;
    let m = super::tb::material_arg(a.material)?;
    let win = match a.goal.as_deref() {
        None | Some("win") => true,
        Some("draw") => false,
        Some(g) => return Err(CliError::input(format!("--goal {g}: win or draw"))),
    };
    let (min, max) = match a.moves {
        None => (1, 30),
        Some(t) => {
            let parse = |s: &str| {
                s.trim()
                    .parse::<u32>()
                    .ok()
                    .filter(|&n| (1..=95).contains(&n))
            };
            let (lo, hi) = match t.split_once('-') {
                Some((lo, hi)) => (parse(lo), parse(hi)),
                None => (parse(t), parse(t)),
            };
            match (lo, hi) {
                (Some(lo), Some(hi)) if lo <= hi => (lo, hi),
                _ => {
                    return Err(CliError::input(format!(
                        "--moves {t}: A-B, from 1 to 95 moves"
                    )));
                }
            }
        }
    };
    let flip = match a.side.as_deref() {
        None => false,
        Some("red") => !win,
        Some("black") => win,
        Some(s) => return Err(CliError::input(format!("--side {s}: red or black"))),
    };
    let seed = a.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let tb = Tablebase::with_rules(table_dir(a.dir)?, a.rules);
    if !tb.path_of(&m).exists() {
        outln!("building the tables of {m} ({}) first", m.chinese());
        super::tb::generate(m, &tb, None)?;
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let wanted = if win {
        puzzle::Wanted::Win { min, max }
    } else {
        puzzle::Wanted::HardDraw
    };
    let fail = |e: puzzle::PuzzleError| CliError {
        code: 1,
        message: e.to_string(),
    };
    let Some(pos) = puzzle::pick(&tb, m, wanted, &mut rng, 2_000_000).map_err(fail)? else {
        return Err(CliError::input(format!(
            "{m}: no position fits (a {} for the side to move); try other --moves",
            if win {
                format!("win of {min}-{max} moves")
            } else {
                "hard draw".into()
            }
        )));
    };
    let pos = if flip { pos.color_flipped() } else { pos };
    let fen = pos.to_string();
    let goal = format!(
        "{}先{}",
        pos.turn().chinese(),
        if win { "胜" } else { "和" }
    );
    let text = format!(
        "[[puzzle]]\nid = \"train-{seed}\"\ntitle = \"{} 训练\"\nsource = \"found in the {m} table\"\nfen = \"{fen}\"\ngoal = \"{goal}\"\nline = []\ndifficulty = 3\n",
        m.chinese()
    );
    let mut puzzles = puzzle::load_str(std::path::Path::new("train.toml"), &text).map_err(fail)?;
    let mut p = puzzles.remove(0);
    let judge = Judge::new(Some(&tb));
    // the line a draw must hold for, and the main line for `solution`
    p.line = judge
        .main_line(&p.position, p.goal, p.budget(), 8)
        .map_err(fail)?;
    outln!("seed {seed} (--seed {seed} plays this position again)");
    super::play::play(&p, &judge)?;
    Ok(())
}

/// `canju puzzle import FILE --collection C`: games from PGN (with a FEN tag) or DhtmlXQ,
/// each checked under perfect play and added to `DIR/C.toml`; the others listed with the
/// reason.
pub fn import(
    file: &std::path::Path,
    collection: &str,
    dir: &Option<PathBuf>,
    tables: &Option<PathBuf>,
    rules: Rules,
) -> CliResult {
    use canju::puzzle::import;
    if collection.is_empty()
        || !collection
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
    {
        return Err(CliError::input(format!(
            "--collection '{collection}': letters, digits, - and _ only"
        )));
    }
    let bytes = canju::files::read_regular(file).map_err(|e| {
        CliError::input(format!(
            "{}: {}",
            file.display(),
            canju::tablebase::format::io_message(&e)
        ))
    })?;
    let text = String::from_utf8(bytes)
        .map_err(|_| CliError::input(format!("{}: not UTF-8 text", file.display())))?;
    let dir = dir.clone().unwrap_or_else(|| PathBuf::from("puzzles"));
    let target = dir.join(format!("{collection}.toml"));
    std::fs::create_dir_all(&dir).map_err(|e| super::file_error(&dir, &e))?;
    // what the import would replace must be a regular file (or nothing) before it is read
    canju::files::check_writable(&target).map_err(|e| super::file_error(&target, &e))?;
    // one import into a collection at a time: the ids and the positions already there are
    // read under the lock, and the file is rewritten whole before it is let go
    let _lock =
        canju::files::Lock::exclusive(&target).map_err(|e| super::file_error(&target, &e))?;
    let before = match canju::files::read_regular(&target) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| CliError {
            code: 1,
            message: format!("{}: not UTF-8 text", target.display()),
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(super::file_error(&target, &e)),
    };
    let existing = puzzle::load_str(&target, before.strip_prefix('\u{feff}').unwrap_or(&before))
        .map_err(|e| CliError {
            code: 1,
            message: e.to_string(),
        })?;
    let mut taken: Vec<String> = existing.iter().map(|p| p.entry.id.clone()).collect();
    let mut positions: Vec<(Position, String)> = existing
        .iter()
        .map(|p| (p.position.clone(), p.entry.id.clone()))
        .collect();
    let (games, mut rejected) = import::read(&text);
    let tb = Tablebase::with_rules(table_dir(tables)?, rules);
    let judge = Judge::new(Some(&tb));
    let mut added = String::new();
    let mut count = 0;
    for g in games {
        let reject = |reason: String| import::Rejected {
            number: g.number,
            reason,
        };
        let mut end = g.position.clone();
        for &m in &g.moves {
            end.play_unchecked(m);
        }
        let mated = end.legal_moves().is_empty();
        let side = g.position.turn();
        let win_for_red = match g.result.as_deref() {
            Some("1-0") => Some(true),
            Some("0-1") => Some(false),
            _ => None,
        };
        let goal = match (g.result.as_deref(), win_for_red) {
            (Some("1/2-1/2"), _) => puzzle::Goal { side, win: false },
            (_, Some(red)) if red == (side == canju::Color::Red) => {
                puzzle::Goal { side, win: true }
            }
            (_, Some(_)) => {
                rejected.push(reject("the result is a loss for the side to move".into()));
                continue;
            }
            (_, None) if mated && end.turn() != side => puzzle::Goal { side, win: true },
            _ => {
                rejected.push(reject(
                    "no result, and the line does not end in mate".into(),
                ));
                continue;
            }
        };
        let stipulation = (goal.win && mated).then(|| (g.moves.len() as u32).div_ceil(2));
        let mut n = taken.len() + 1;
        while taken.contains(&format!("{collection}-{n:03}")) {
            n += 1;
        }
        let id = format!("{collection}-{n:03}");
        let entry = puzzle::Entry {
            id: id.clone(),
            title: g
                .title
                .clone()
                .unwrap_or_else(|| format!("{collection} 第{n}题")),
            source: g
                .source
                .clone()
                .unwrap_or_else(|| format!("imported from {}", file.display())),
            fen: g.position.to_string(),
            goal: goal.to_string(),
            moves: stipulation,
            line: import::chinese_line(&g),
            tags: vec![collection.to_string()],
            difficulty: stipulation.map_or(3, |m| m.clamp(1, 5) as u8),
            checks: false,
        };
        let one = toml::to_string(&ImportFile {
            puzzle: vec![entry],
        })
        .map_err(CliError::input)?;
        let parsed = match puzzle::load_str(&target, &one) {
            Ok(mut v) => v.remove(0),
            Err(e) => {
                rejected.push(reject(e.to_string()));
                continue;
            }
        };
        if let Err(e) = ensure_tables(&parsed, &tb) {
            rejected.push(reject(format!("its tables cannot be built: {}", e.message)));
            continue;
        }
        if let Err(reason) = judge.verify(&parsed) {
            rejected.push(reject(reason));
            continue;
        }
        if let Some((_, id)) = positions.iter().find(|(p, _)| *p == parsed.position) {
            rejected.push(reject(format!(
                "the position is already in the collection as {id}"
            )));
            continue;
        }
        positions.push((parsed.position.clone(), id.clone()));
        taken.push(id);
        added.push('\n');
        added.push_str(&one);
        count += 1;
    }
    if count > 0 {
        let mut all = before;
        all.push_str(&added);
        canju::files::write_atomically(&target, &[all.as_bytes()])
            .map_err(|e| super::file_error(&target, &e))?;
    }
    outln!("{count} imported into {}", target.display());
    rejected.sort_by_key(|r| r.number);
    for r in &rejected {
        outln!("game {}: not added: {}", r.number, r.reason);
    }
    if count == 0 {
        return Err(CliError {
            code: 1,
            message: format!("nothing imported from {}", file.display()),
        });
    }
    Ok(())
}

#[derive(serde::Serialize)]
struct ImportFile {
    puzzle: Vec<puzzle::Entry>,
}
