//! `canju puzzle list | show | check | play | reset | import` and `canju train`.

use std::path::PathBuf;

use canju::puzzle::attempt::AttemptError;
use canju::puzzle::check::check_line;
use canju::puzzle::import::{ImportError, import_into};
use canju::puzzle::listing::mark;
use canju::puzzle::progress::{Finish, Why};
use canju::puzzle::train::{MAX_TRAIN_MOVES, TrainRequest, training_puzzle};
use canju::puzzle::words::Lang;
use canju::puzzle::{self, Judge, Puzzle};
use canju::tablebase::{Rules, Tablebase};

use super::common::{generate, generate_quietly, material_arg, puzzle_error, table_dir};
use super::{CliError, CliResult};

/// `canju puzzle audit`'s arguments.
pub struct AuditArgs<'a> {
    pub file: &'a std::path::Path,
    pub proof: &'a super::ProofArgs,
    pub draw_moves: u32,
    pub draw_time: f64,
    pub json: bool,
    pub threads: Option<usize>,
    pub dir: &'a Option<PathBuf>,
    pub rules: Rules,
}

/// Reads a transcription file (regular, UTF-8).
fn read_text(file: &std::path::Path) -> Result<String, CliError> {
    let bytes = canju::files::read_regular(file).map_err(|e| {
        CliError::input(format!(
            "{}: {}",
            file.display(),
            canju::tablebase::format::io_message(&e)
        ))
    })?;
    String::from_utf8(canju::files::without_bom(&bytes).to_vec())
        .map_err(|_| CliError::input(format!("{}: not UTF-8 text", file.display())))
}

/// The proof bounds of `--max-moves`, `--checks-moves`, `--time`, `--long-moves`,
/// `--long-time` and `--assume`, checked.
fn proof_options(a: &super::ProofArgs) -> Result<canju::puzzle::proof::ProofOptions, CliError> {
    let most = canju::solver::MAX_MOVES;
    if a.max_moves == 0 || a.max_moves > most {
        return Err(CliError::input(format!(
            "--max-moves {}: between 1 and {most}",
            a.max_moves
        )));
    }
    if a.checks_moves > most {
        return Err(CliError::input(format!(
            "--checks-moves {}: between 0 and {most}",
            a.checks_moves
        )));
    }
    if a.long_moves > most {
        return Err(CliError::input(format!(
            "--long-moves {}: between 0 and {most}",
            a.long_moves
        )));
    }
    if !(a.long_time > 0.0 && a.long_time <= 86_400.0) {
        return Err(CliError::input(format!(
            "--long-time {}: seconds, more than 0 and at most a day",
            a.long_time
        )));
    }
    if !(a.time > 0.0 && a.time <= 86_400.0) {
        return Err(CliError::input(format!(
            "--time {}: seconds, more than 0 and at most a day",
            a.time
        )));
    }
    let assume = match a.assume.as_deref() {
        None => None,
        Some("红先胜" | "1-0" | "win") => Some("1-0".to_string()),
        Some("红先和" | "1/2-1/2" | "draw") => Some("1/2-1/2".to_string()),
        Some(other) => {
            return Err(CliError::input(format!(
                "--assume '{other}': 红先胜 or 红先和"
            )));
        }
    };
    Ok(canju::puzzle::proof::ProofOptions {
        max_moves: a.max_moves,
        checks_max_moves: a.checks_moves,
        seconds: a.time,
        assume,
        long_max_moves: a.long_moves,
        long_seconds: a.long_time,
        ..Default::default()
    })
}

/// `canju puzzle audit FILE`: what canju proves of each composition's stated result.
pub fn audit(a: AuditArgs) -> CliResult {
    use canju::puzzle::audit::Finding;
    let mut options = proof_options(a.proof)?;
    if a.draw_moves > canju::solver::MAX_MOVES {
        return Err(CliError::input(format!(
            "--draw-moves {}: between 0 and {}",
            a.draw_moves,
            canju::solver::MAX_MOVES
        )));
    }
    if !(a.draw_time > 0.0 && a.draw_time <= 86_400.0) {
        return Err(CliError::input(format!(
            "--draw-time {}: seconds, more than 0 and at most a day",
            a.draw_time
        )));
    }
    options.draw_safe_moves = a.draw_moves;
    options.draw_seconds = a.draw_time;
    let text = read_text(a.file)?;
    let (games, rejected) = canju::puzzle::import::read(&text);
    if games.is_empty() {
        return Err(CliError::input(format!(
            "{}: no composition could be read{}",
            a.file.display(),
            rejected
                .first()
                .map_or(String::new(), |r| format!(" (the first: {})", r.reason))
        )));
    }
    let tb = Tablebase::with_rules(table_dir(a.dir)?, a.rules);
    let pool = super::common::thread_pool(a.threads)?;
    let bar = super::common::progress_bar("audit");
    bar.set_length(games.len() as u64);
    let report = pool
        .install(|| canju::puzzle::audit::audit(&games, &options, Some(&tb), &|_| bar.inc(1)))
        .map_err(super::common::table_error)?;
    bar.finish_and_clear();
    if a.json {
        return super::print_json(&report);
    }
    for r in &rejected {
        outln!("game {}: not read: {}", r.number, r.reason);
    }
    for e in &report.entries {
        let stated = match (e.stated, e.assumed) {
            (Some("win"), false) => "红先胜",
            (Some("win"), true) => "红先胜 (assumed)",
            (Some("draw"), false) => "和",
            (Some("draw"), true) => "和 (assumed)",
            (Some(_), _) => "负",
            (None, _) => "unstated",
        };
        let found = match (&e.win, e.same_as) {
            (_, Some(n)) => format!("the same diagram as game {n}"),
            (Some(w), _) if w.by == "rule" => {
                format!("a win by {}, from the tables", tb.rules().rule_en())
            }
            (Some(w), _) if !w.shortest => format!(
                "a win within {} moves ({} plies{}{}; the shortest not established{}{})",
                w.plies.div_ceil(2),
                w.plies,
                how_found(w.by),
                if w.by_rule == Some(true) {
                    format!("; only by {}", tb.rules().rule_en())
                } else {
                    String::new()
                },
                if w.by == "into-tables" {
                    ""
                } else {
                    " in the time"
                },
                match e.no_win_within {
                    Some(n) => format!(": none within {n} moves"),
                    None => String::new(),
                }
            ),
            (Some(w), _) => format!(
                "{} ({} plies{}{})",
                super::solve::chinese_moves(w.plies.div_ceil(2)),
                w.plies,
                how_found(w.by),
                if w.by_rule == Some(true) {
                    format!("; only by {}", tb.rules().rule_en())
                } else {
                    String::new()
                }
            ),
            (None, _) if e.tables.is_some() => format!("tables: {}", e.tables.unwrap_or("")),
            (None, _) => {
                let checks = if options.checks_max_moves > e.no_win_within.unwrap_or(0) {
                    format!(" ({} by checks alone)", options.checks_max_moves)
                } else {
                    String::new()
                };
                match e.no_win_within {
                    Some(n) if e.complete => format!("no forced win within {n} moves{checks}"),
                    Some(n) => format!(
                        "no forced win within {n} moves{checks}; none found beyond in the time"
                    ),
                    None => "no forced win found in the time".to_string(),
                }
            }
        };
        outln!(
            "{:>3}. {}  [{}]  {}: {}  {:.2} s",
            e.number,
            e.title,
            stated,
            match e.finding {
                Finding::Proven => "proven",
                Finding::WinNotFound => "not found",
                Finding::WinRefuted => "refuted",
                Finding::Cook => "cook (破局)",
                Finding::DrawConfirmed => "draw confirmed",
                Finding::DrawPlayedOut => "draw played out",
                Finding::DrawNotRefuted => "draw not refuted",
                Finding::DrawLost => "draw refuted (the side to move loses)",
                Finding::UnstatedWin => "win",
                Finding::UnstatedNoWin => "no win",
                Finding::Duplicate => "duplicate",
            },
            found,
            e.seconds
        );
        if let Some(l) = &e.draw_line {
            outln!(
                "     played out{}: {} moves to {} ({}), each move safe from a forced loss within {} moves",
                if l.line.is_empty() {
                    ""
                } else {
                    " (the line below)"
                },
                l.line.len().div_ceil(2),
                l.end.describe(),
                l.material,
                l.safe_within
            );
            if !l.line.is_empty() {
                outln!("     line: {}", l.line.join(" "));
            }
        }
        // (the line that refutes a stated draw, for the composer to see)
        if e.finding == Finding::Cook
            && let Some(w) = &e.win
            && !w.line.is_empty()
        {
            outln!("     line: {}", w.line.join(" "));
        }
    }
    let counts: Vec<String> = report
        .counts
        .iter()
        .map(|(f, n)| format!("{n} {}", f.describe()))
        .collect();
    outln!(
        "{}: {} compositions; {}; {} s in all (median {:.2} s, longest {:.2} s)",
        a.file.display(),
        report.entries.len(),
        counts.join("; "),
        report.seconds.round(),
        report.median_seconds,
        report.max_seconds
    );
    Ok(())
}

/// How an audit's win was found, as its text says it.
fn how_found(by: &str) -> &'static str {
    match by {
        "tables" => ", tables",
        "checks" => ", by checks alone",
        "long" => ", proof-number search",
        "into-tables" => ", a first move into a table's material, then the tables",
        _ => "",
    }
}

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

pub struct ListArgs<'a> {
    pub dir: &'a Option<PathBuf>,
    pub tag: &'a Option<String>,
    pub collection: &'a Option<String>,
    pub progress: &'a Option<String>,
    pub ratings: (Option<i32>, Option<i32>),
    pub sort: &'a str,
    pub json: bool,
    pub lang: Lang,
}

/// A puzzle's line in a list: its progress now.
struct Row<'p> {
    puzzle: &'p Puzzle,
    rating: i32,
    mark: Option<&'static str>,
    due: Option<u64>,
}

/// `canju puzzle list`: the puzzles with their ratings and progress, filtered and sorted.
pub fn list(a: ListArgs) -> CliResult {
    let all = collections(a.dir)?;
    let (_, progress) = progress()?;
    let now = puzzle::progress::now();
    let wanted = match a.progress.as_deref() {
        None => None,
        Some(w @ ("clean" | "helped" | "failed" | "untried" | "due")) => Some(w),
        Some(w) => {
            return Err(CliError::input(format!(
                "--progress {w}: clean, helped, failed, untried or due"
            )));
        }
    };
    let mut rows: Vec<Row> = all
        .iter()
        .filter(|p| a.tag.as_ref().is_none_or(|t| p.entry.tags.contains(t)))
        .filter(|p| a.collection.as_ref().is_none_or(|c| &p.collection == c))
        .map(|p| {
            let r = progress.get(&p.entry.id);
            Row {
                puzzle: p,
                rating: progress.puzzle_rating(p).shown(),
                mark: mark(r),
                due: r.and_then(|r| r.due()),
            }
        })
        .filter(|r| match wanted {
            None => true,
            Some("untried") => r.mark.is_none(),
            Some("due") => r.due.is_some_and(|d| d <= now),
            Some(w) => r.mark == Some(w),
        })
        .filter(|r| a.ratings.0.is_none_or(|lo| r.rating >= lo))
        .filter(|r| a.ratings.1.is_none_or(|hi| r.rating <= hi))
        .collect();
    match a.sort {
        "file" => {}
        "rating" => rows.sort_by_key(|r| r.rating),
        "due" => rows.sort_by_key(|r| r.due.unwrap_or(u64::MAX)),
        s => {
            return Err(CliError::input(format!("--sort {s}: file, rating or due")));
        }
    }
    if a.json {
        // each puzzle as the server lists it, with its rating and recorded progress
        let out: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| {
                let mut j = serde_json::to_value(r.puzzle.summary()).map_err(CliError::input)?;
                j["rating"] = serde_json::json!(r.rating);
                j["progress"] = serde_json::json!(r.mark);
                j["due"] = serde_json::json!(r.due);
                Ok(j)
            })
            .collect::<Result<_, CliError>>()?;
        super::print_json(&out)?;
        return Ok(());
    }
    let lang = a.lang;
    let zh = lang == Lang::Zh;
    for r in &rows {
        let p = r.puzzle;
        let due = match r.due {
            Some(d) if d <= now => lang.pick("  （待复习）", "  (due)"),
            _ => "",
        };
        // the goal short: 红先胜 限3步, "red wins in 3"
        let goal = match (zh, p.entry.moves) {
            (true, Some(n)) => format!("{} 限{n}步", p.goal),
            (true, None) => p.goal.to_string(),
            (false, n) => format!(
                "{} {}{}",
                p.goal.side.name(),
                if p.goal.win { "wins" } else { "draws" },
                n.map_or(String::new(), |n| format!(" in {n}"))
            ),
        };
        let tags = p.tags(lang);
        // (in Chinese the page's marks: ✓ solved clean, ✓? with help, ✗ failed)
        let mark = match (zh, r.mark) {
            (_, None) => "-",
            (true, Some("clean")) => "✓",
            (true, Some("helped")) => "✓?",
            (true, Some(_)) => "✗",
            (false, Some(m)) => m,
        };
        outln!(
            "{:<16} {:<7} {:>4}  {goal}  {}  {}{due}",
            p.entry.id,
            mark,
            r.rating,
            p.title(lang),
            tags.join(if zh { " " } else { ", " })
        );
    }
    if rows.is_empty() {
        outln!("{}", lang.pick("没有符合的题目", "no puzzle matches"));
    }
    let count = |m: &str| rows.iter().filter(|r| r.mark == Some(m)).count();
    let due = rows
        .iter()
        .filter(|r| r.due.is_some_and(|d| d <= now))
        .count();
    let me = progress.player_rating();
    if zh {
        outln!(
            "共{}题：独立解出{}，借助提示{}，未解出{}，待复习{due}；你的等级分 {}（±{}）；连胜 {}",
            rows.len(),
            count("clean"),
            count("helped"),
            count("failed"),
            me.shown(),
            me.deviation.round() as i32,
            progress.streak
        );
        return Ok(());
    }
    outln!(
        "{} puzzle{}: {} solved clean, {} with help, {} failed, {due} due for review; your rating {} (±{}); streak {}",
        rows.len(),
        if rows.len() == 1 { "" } else { "s" },
        count("clean"),
        count("helped"),
        count("failed"),
        me.shown(),
        me.deviation.round() as i32,
        progress.streak
    );
    Ok(())
}

pub fn show(dir: &Option<PathBuf>, id: &str, lang: Lang) -> CliResult {
    let all = collections(dir)?;
    let p = find(&all, id)?;
    // (from the side of the player: turned for a puzzle where black moves first)
    let view = canju::render::terminal::View {
        black_below: p.goal.side == canju::Color::Black,
        last: None,
        numbers: true,
    };
    // (in English the letters' board, with ICCS coordinates and no Chinese labels)
    let style = super::board::board_style(lang == Lang::En);
    out!(
        "{}",
        canju::render::terminal::grid_seen(&p.position, style, view)
    );
    outln!("{}", puzzle::words::to_move(lang, p.position.turn()));
    outln!("{}", p.entry.fen);
    let collection = puzzle::words::collection(lang, &p.collection);
    let tags = p.tags(lang);
    if lang == Lang::Zh {
        outln!("{} · {}（{collection}）", p.entry.id, p.title(lang));
        outln!("目标：{}", p.goal_words(lang));
        outln!("出处：{}", p.source(lang));
        outln!("标签：{}  难度：{}", tags.join(" "), p.entry.difficulty);
        if p.entry.long {
            outln!(
                "长局：沿已证明的主线判定，不必搜索；偏离主线的着法由证明数搜索判定（每次{}秒）",
                puzzle::LONG_SECONDS
            );
        }
        return Ok(());
    }
    outln!("{} · {} ({collection})", p.entry.id, p.title(lang));
    outln!("goal: {}", p.goal_text());
    outln!("source: {}", p.source(lang));
    outln!(
        "tags: {}  difficulty: {}",
        tags.join(", "),
        p.entry.difficulty
    );
    if p.entry.long {
        outln!(
            "a long composition: its proven line is followed without searching, a move off it is judged by proof-number search ({} s a search)",
            puzzle::LONG_SECONDS
        );
    }
    Ok(())
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
    let j = check_line(p, &Judge::for_puzzle(Some(&tb), p), moves).map_err(|e| match e {
        AttemptError::Move(m) => CliError::input(m),
        e @ AttemptError::NotPlayersMove => CliError::input(e),
        AttemptError::Puzzle(e) => puzzle_error(e),
    })?;
    if json {
        super::print_json(&j)?;
    } else {
        for m in &j.moves {
            let detail = match m.slower {
                Some(n) => format!(
                    "good: still winning, {n} move{} slower than the best",
                    if n == 1 { "" } else { "s" }
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
        } else if !j.failed {
            outln!("not solved yet: the line stops before the goal is reached");
        }
    }
    if j.solved {
        Ok(())
    } else {
        Err(CliError {
            code: 1,
            message: if let Some(said) = j.ending_said.as_ref().filter(|_| j.failed) {
                // (a draw by repetition: the game's end says why)
                format!("{}: {}", p.entry.id, said.en)
            } else if j.failed {
                format!(
                    "{}: {} loses the goal{}",
                    p.entry.id,
                    j.last_move(),
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

/// The progress file, read (a damaged one is reported on standard error and kept aside).
pub fn progress() -> Result<(Option<PathBuf>, puzzle::progress::Progress), CliError> {
    let Some(path) = puzzle::progress::default_path() else {
        return Ok((None, Default::default()));
    };
    let (p, warning) = puzzle::progress::load(&path).map_err(|e| CliError {
        code: 1,
        message: e.to_string(),
    })?;
    if let Some(w) = warning {
        errln!("canju: warning: {w}");
    }
    Ok((Some(path), p))
}

/// `canju puzzle verify [ID…] [--collection C] [--long]`: each puzzle chosen proven to hold
/// under perfect play ([`Judge::verify`]), two at a time, a line for each as it is done;
/// one whose table is not built is named with the command that builds it and not counted
/// either way.
pub fn verify(
    dir: &Option<PathBuf>,
    tables: &Option<PathBuf>,
    ids: &[String],
    collection: Option<&str>,
    long: bool,
    rules: Rules,
) -> CliResult {
    use rayon::prelude::*;
    let all = collections(dir)?;
    for id in ids {
        find(&all, id)?;
    }
    if let Some(c) = collection
        && !all.iter().any(|p| p.collection == c)
    {
        return Err(CliError::input(format!(
            "--collection {c}: no such collection"
        )));
    }
    let chosen: Vec<&Puzzle> = all
        .iter()
        .filter(|p| ids.is_empty() || ids.contains(&p.entry.id))
        .filter(|p| collection.is_none_or(|c| p.collection == c))
        .filter(|p| !long || p.entry.long)
        .collect();
    if chosen.is_empty() {
        return Err(CliError::input("no puzzle is chosen"));
    }
    let tb = Tablebase::with_rules(table_dir(tables)?, rules);
    let start = std::time::Instant::now();
    // (holds, unsound, without its table)
    let counts = std::sync::Mutex::new((0usize, 0usize, 0usize));
    chosen.par_iter().try_for_each(|p| {
        let t = std::time::Instant::now();
        let id = &p.entry.id;
        if let Some(m) = p.table_to_build(&tb) {
            outln!("{id}  not verified: it needs the table of {m} (canju gen {m})");
            counts.lock().unwrap_or_else(|e| e.into_inner()).2 += 1;
            return Ok(());
        }
        let r = Judge::for_puzzle(Some(&tb), p).verify(p);
        let secs = t.elapsed().as_secs_f64();
        let mut c = counts.lock().unwrap_or_else(|e| e.into_inner());
        match r {
            Ok(plies) => {
                c.0 += 1;
                let what = match plies {
                    Some(n) => format!("{} ({n} plies)", puzzle::import::kill_name(n.div_ceil(2))),
                    None => "the draw".into(),
                };
                outln!("{id}  holds: {}, {what}  {secs:.2} s", p.entry.goal);
            }
            // (a damaged table is the command's error, not the puzzle's)
            Err(puzzle::Unsound::Judge(e @ puzzle::PuzzleError::Table(_))) => {
                return Err(puzzle_error(e));
            }
            Err(e) => {
                c.1 += 1;
                outln!("{id}  UNSOUND: {e}  {secs:.2} s");
            }
        }
        Ok::<(), CliError>(())
    })?;
    let (holds, unsound, untabled) = counts.into_inner().unwrap_or_else(|e| e.into_inner());
    outln!(
        "{} puzzles: {holds} hold, {unsound} unsound{}; {:.1} s (rules {})",
        chosen.len(),
        if untabled > 0 {
            format!(", {untabled} not verified (tables not built)")
        } else {
            String::new()
        },
        start.elapsed().as_secs_f64(),
        tb.rules()
    );
    if unsound > 0 {
        return Err(CliError {
            code: 1,
            message: format!("{unsound} of {} puzzles do not hold", chosen.len()),
        });
    }
    Ok(())
}

/// Builds the tables a puzzle needs ([`Puzzle::table_to_build`]) when they are missing.
fn ensure_tables(p: &Puzzle, tb: &Tablebase) -> Result<(), CliError> {
    let Some(m) = p.table_to_build(tb) else {
        return Ok(());
    };
    // on standard error (standard output may be a JSON report), under a line that names them
    generate_quietly(m, tb, None).map(|_| ())
}

/// `canju puzzle play [ID]`: the puzzle, or the next one to do (a review that is due,
/// else the untried puzzle rated nearest the player), played from standard input; the
/// attempt is recorded, with both ratings.
pub fn play_cmd(
    dir: &Option<PathBuf>,
    tables: &Option<PathBuf>,
    id: &Option<String>,
    rules: Rules,
    lang: Lang,
) -> CliResult {
    let all = collections(dir)?;
    let (path, progress) = progress()?;
    let zh = lang == Lang::Zh;
    let p = match id {
        Some(id) => find(&all, id)?,
        None => match progress.next(&all, puzzle::progress::now()) {
            Some((p, why)) => {
                let rating = progress.puzzle_rating(p).shown();
                match (why, zh) {
                    (Why::Due, true) => outln!("复习（上次失败或得到提示）：等级分 {rating}"),
                    (Why::Due, false) => {
                        outln!("review (failed or helped before): rated {rating}")
                    }
                    (Why::New, true) => outln!(
                        "新题：等级分 {rating}（你的等级分 {}）",
                        progress.player_rating().shown()
                    ),
                    (Why::New, false) => outln!(
                        "new puzzle: rated {rating} (you: {})",
                        progress.player_rating().shown()
                    ),
                }
                p
            }
            None => {
                let when = progress.next_review().map_or(String::new(), |t| {
                    let wait = t.saturating_sub(puzzle::progress::now());
                    format!(
                        "; the next review is due {}",
                        puzzle::words::wait(Lang::En, wait)
                    )
                });
                return Err(CliError::input(format!(
                    "every puzzle has been tried and none is due{when} (`canju puzzle play ID` plays one again, `canju puzzle reset` starts over)"
                )));
            }
        },
    };
    let tb = Tablebase::with_rules(table_dir(tables)?, rules);
    ensure_tables(p, &tb)?;
    let judge = Judge::for_puzzle(Some(&tb), p);
    // a hint or the solution is recorded when it is shown: leaving after it does not leave
    // the puzzle untried, and the attempt is not recorded again at its end
    let mut recorded = None;
    let mut on_help = |finish: Finish| {
        if let Some(path) = &path {
            recorded = Some(record_attempt(path, p, finish, lang));
        }
    };
    let outcome = super::play::play(p, &judge, lang, &mut on_help)?;
    if let Some(done) = recorded {
        done?;
        outln!(
            "{}",
            lang.pick(
                "（本次已在看提示或答案时记录）",
                "(this attempt was recorded when help was shown)"
            )
        );
        return Ok(());
    }
    if let (Some(finish), Some(path)) = (outcome.finish(), path) {
        record_attempt(&path, p, finish, lang)?;
    }
    Ok(())
}

/// Records an attempt in the progress file (re-read under its lock: another terminal or
/// the page may have recorded since) and says what was recorded.
fn record_attempt(
    path: &std::path::Path,
    p: &canju::puzzle::Puzzle,
    finish: Finish,
    lang: Lang,
) -> Result<(), CliError> {
    let now = puzzle::progress::now();
    let (after, recorded, warning) = puzzle::progress::update(path, |pr| pr.record(p, finish, now))
        .map_err(|e| CliError {
            code: 1,
            message: e.to_string(),
        })?;
    if let Some(w) = warning {
        errln!("canju: warning: {w}");
    }
    let review = after
        .get(&p.entry.id)
        .and_then(|r| r.review)
        .map(|r| r.due.saturating_sub(now));
    outln!(
        "{}",
        puzzle::words::recorded(
            lang,
            finish,
            &recorded,
            after.puzzle_rating(p).shown(),
            review
        )
    );
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
    pub lang: Lang,
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
    let m = material_arg(a.material)?;
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
                    .filter(|&n| (1..=MAX_TRAIN_MOVES).contains(&n))
            };
            let (lo, hi) = match t.split_once('-') {
                Some((lo, hi)) => (parse(lo), parse(hi)),
                None => (parse(t), parse(t)),
            };
            match (lo, hi) {
                (Some(lo), Some(hi)) if lo <= hi => (lo, hi),
                _ => {
                    return Err(CliError::input(format!(
                        "--moves {t}: A-B, from 1 to {MAX_TRAIN_MOVES} moves"
                    )));
                }
            }
        }
    };
    let side = match a.side.as_deref() {
        None => None,
        Some("red") => Some(canju::Color::Red),
        Some("black") => Some(canju::Color::Black),
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
        generate(m, &tb, None)?;
    }
    let request = TrainRequest {
        material: m,
        win,
        moves: (min, max),
        side,
        seed,
    };
    let Some(p) = training_puzzle(&tb, &request).map_err(puzzle_error)? else {
        return Err(CliError::input(format!(
            "{m}: no position fits (a {} for the side to move); try other --moves",
            if win {
                format!("win of {min}-{max} moves")
            } else {
                "hard draw".into()
            }
        )));
    };
    outln!("seed {seed} (--seed {seed} plays this position again)");
    super::play::play(&p, &Judge::new(Some(&tb)), a.lang, &mut |_| {})?;
    Ok(())
}

/// `canju puzzle import FILE --collection C`: games from PGN (with a FEN tag) or DhtmlXQ,
/// each checked under perfect play and added to `DIR/C.toml`; the others listed with the
/// reason.
pub fn import(
    file: &std::path::Path,
    collection: &str,
    proof: &super::ProofArgs,
    dir: &Option<PathBuf>,
    tables: &Option<PathBuf>,
    rules: Rules,
) -> CliResult {
    let proof = proof_options(proof)?;
    let text = read_text(file)?;
    let dir = dir.clone().unwrap_or_else(|| PathBuf::from("puzzles"));
    let tb = Tablebase::with_rules(table_dir(tables)?, rules);
    let judge = Judge::new(Some(&tb));
    let r = import_into(
        &text,
        &file.display().to_string(),
        collection,
        &dir,
        &judge,
        &proof,
        &mut |p| ensure_tables(p, &tb).map_err(|e| e.message),
    )
    .map_err(|e| match e {
        ImportError::CollectionName(name) => CliError::input(format!(
            "--collection '{name}': letters, digits, - and _ only"
        )),
        e => CliError {
            code: 1,
            message: e.to_string(),
        },
    })?;
    outln!("{} imported into {}", r.added.len(), r.target.display());
    for g in &r.rejected {
        outln!("game {}: not added: {}", g.number, g.reason);
    }
    if r.added.is_empty() {
        return Err(CliError {
            code: 1,
            message: format!("nothing imported from {}", file.display()),
        });
    }
    Ok(())
}
