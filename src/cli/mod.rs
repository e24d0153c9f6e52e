//! The command line: clap definitions and one module per command group. No game logic
//! lives here; commands call the library and print.

mod board;
mod common;
mod diff;
mod main_job;
mod perft;
mod plan;
mod play;
mod puzzle;
mod solve;
mod tb;
mod theory;
mod uci;

use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use canju::Position;
use canju::notation::Notation;
use canju::tablebase::Rules;

/// The rule set when none is named: the one players play under.
const DEFAULT_RULES: &str = "asian";
const RULES_HELP: &str = "Rule set: asian (perpetual attack, 长打, loses: check, mate threat or chase; the default), check-only (perpetual check alone loses) or none (endless play is a draw)";

/// canju (残局): Xiangqi endgame tablebases and trainer.
#[derive(Parser, Debug)]
#[command(name = "canju", version = concat!(env!("CARGO_PKG_VERSION"), " (source ", env!("CANJU_SOURCE_FINGERPRINT"), ")"), about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

/// `--dir`: the table directory, for every command that reads or builds tables.
#[derive(Args, Debug)]
struct DirArg {
    /// Table directory (default: $CANJU_TB_DIR, else tablebases/).
    #[arg(long)]
    dir: Option<PathBuf>,
}

/// `--lang`: the language of a trainer's words.
#[derive(Args, Debug)]
struct LangArg {
    /// The trainer's language: zh (中文, the default) or en (default: $CANJU_LANG, else zh).
    #[arg(long)]
    lang: Option<canju::puzzle::words::Lang>,
}

impl LangArg {
    fn resolve(self) -> Result<canju::puzzle::words::Lang, CliError> {
        match self.lang {
            Some(l) => Ok(l),
            None => canju::puzzle::words::Lang::from_env()
                .map_err(|e| CliError::input(format!("CANJU_LANG: {e}"))),
        }
    }
}

/// `--threads`: worker threads, for every command that works in parallel.
#[derive(Args, Debug)]
struct ThreadsArg {
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
}

/// `--rules`: the rule set of the tables a command reads or builds.
#[derive(Args, Debug)]
struct RulesArg {
    #[arg(long, default_value = DEFAULT_RULES, help = RULES_HELP)]
    rules: Rules,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Count the leaves of the legal move tree (the last line is the node count alone).
    Perft {
        /// Position (default: the start position).
        #[arg(long, value_parser = clap::value_parser!(OsString))]
        fen: Option<OsString>,
        /// Depth in plies.
        depth: u32,
        /// Also print each legal move with its count.
        #[arg(long)]
        divide: bool,
    },
    /// List the legal moves of a position, one per line.
    Moves {
        #[arg(long, value_parser = clap::value_parser!(OsString))]
        fen: Option<OsString>,
        /// iccs, wxf or chinese.
        #[arg(long, default_value = "chinese")]
        notation: Notation,
        /// Black's numbers as 1..9 instead of full-width １..９ (Chinese notation).
        #[arg(long)]
        ascii_digits: bool,
        /// What each move attacks, as the 棋例 judge a repetition: 将 (check), 杀 (a threat
        /// of mate next move), 捉 (a threat to win a piece, with its targets) or 闲.
        #[arg(long)]
        attacks: bool,
        /// An array of {"iccs", "wxf", "chinese", "attack", "attack_zh", "chases": [{"from",
        /// "target", "piece", "reason"}]} objects.
        #[arg(long)]
        json: bool,
    },
    /// Play moves (any notation, mixed) from a position and print the resulting FEN.
    Apply {
        #[arg(long, value_parser = clap::value_parser!(OsString))]
        fen: Option<OsString>,
        /// Moves such as h2e2, C2.5 or 炮二平五.
        #[arg(required = true)]
        moves: Vec<String>,
    },
    /// Build the tables of an endgame and of everything it falls into after captures.
    Gen {
        /// Material (KNPKAABB, KHPKAAEE or 马卒对士相全), a class of endgames (armless:2:
        /// one side with 1 to 2 of 车马炮兵, the other advisors and elephants only; pieces:5:
        /// every endgame of at most 5 pieces), or @FILE with one material per line (what
        /// --list prints).
        material: String,
        /// Print the tables the build needs, smallest first, with their size, whether they
        /// are built, and a time estimate; build nothing.
        #[arg(long)]
        list: bool,
        /// With a class or a file: only endgames whose table has at most this many entries
        /// per side to move (a number, or with K, M or G: 500M, 2G).
        #[arg(long)]
        max_entries: Option<String>,
        #[command(flatten)]
        dir: DirArg,
        #[command(flatten)]
        threads: ThreadsArg,
        /// Build this table alone; the tables it falls into must be there (a job of
        /// `canju plan`).
        #[arg(long)]
        no_deps: bool,
        #[command(flatten)]
        rules: RulesArg,
        /// Write a checkpoint of a table's build at most this often (default 10; 0: after
        /// every phase), so that a killed build resumes from it when run again.
        #[arg(long, value_name = "MINUTES")]
        checkpoint_minutes: Option<String>,
    },
    /// List the endgames a material falls into after captures, in build order.
    Deps { material: String },
    /// Print the build of a material's tables as a workflow of independent jobs, one
    /// `canju gen TABLE --no-deps` each, for make or Snakemake (on one machine or a
    /// cluster).
    Plan {
        material: String,
        /// make or snakemake.
        #[arg(long, default_value = "make")]
        format: String,
        #[command(flatten)]
        dir: DirArg,
        /// The canju program the jobs run (default: canju on PATH).
        #[arg(long, default_value = "canju")]
        bin: String,
        #[command(flatten)]
        threads: ThreadsArg,
        #[command(flatten)]
        rules: RulesArg,
    },
    /// Index size and table size of a material at once; legal positions from its table, or
    /// counted with --count.
    Info {
        material: String,
        /// Count the legal positions when the table is not built (a pass over the index).
        #[arg(long)]
        count: bool,
        #[command(flatten)]
        dir: DirArg,
        #[command(flatten)]
        threads: ThreadsArg,
        #[command(flatten)]
        rules: RulesArg,
    },
    /// The perfect-play value of a position and of each of its moves, best first.
    Probe {
        #[arg(long, value_parser = clap::value_parser!(OsString))]
        fen: Option<OsString>,
        #[arg(long, default_value = "chinese")]
        notation: Notation,
        #[arg(long)]
        json: bool,
        /// Build the position's tables first if they are missing.
        #[arg(long)]
        generate: bool,
        #[command(flatten)]
        dir: DirArg,
        #[command(flatten)]
        threads: ThreadsArg,
        #[command(flatten)]
        rules: RulesArg,
    },
    /// Win/draw/loss counts and the longest win of a table.
    Stats {
        material: String,
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        dir: DirArg,
        #[command(flatten)]
        rules: RulesArg,
    },
    /// Check every entry of a table against its successors, and its checksum.
    Verify {
        material: String,
        #[command(flatten)]
        dir: DirArg,
        #[command(flatten)]
        threads: ThreadsArg,
        /// Also every table it falls into, smallest first: the whole family.
        #[arg(long)]
        with_deps: bool,
        #[command(flatten)]
        rules: RulesArg,
    },
    /// The positions whose verdict a repetition rule changes: counts per side to move and
    /// kind, and examples with the line that shows the cycle (builds both rule sets'
    /// tables if missing).
    Diff {
        material: String,
        #[command(flatten)]
        rules: RulesArg,
        /// The weaker rule set to compare with: none (the default) or check-only (the
        /// default with --by-clause).
        #[arg(long)]
        against: Option<Rules>,
        /// What each clause of 长打 beyond 长将 decides: 杀 alone, 捉 alone, both (solves the
        /// endgame twice more, in memory).
        #[arg(long)]
        by_clause: bool,
        /// Examples per side to move and kind.
        #[arg(long, default_value_t = 2)]
        examples: usize,
        #[arg(long, default_value = "chinese")]
        notation: Notation,
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        dir: DirArg,
        #[command(flatten)]
        threads: ThreadsArg,
    },
    /// Prove the shortest forced win (mate or stalemate) within a bound, every winning
    /// first move and the main line; or prove there is none.
    Solve {
        #[arg(long, value_parser = clap::value_parser!(OsString))]
        fen: Option<OsString>,
        /// The bound, in moves of the side to move (三步杀 = 3).
        #[arg(long, default_value_t = canju::solver::DEFAULT_MAX_MOVES)]
        max_moves: u32,
        #[command(flatten)]
        threads: ThreadsArg,
        /// Stop after this many seconds and report what was proven.
        #[arg(long)]
        time: Option<f64>,
        /// iccs, wxf or chinese.
        #[arg(long, default_value = "chinese")]
        notation: Notation,
        #[arg(long)]
        json: bool,
        /// Transposition table size in MB: the most it grows to (it starts at 1 MB and grows four times at a step as the proof needs).
        #[arg(long, default_value_t = canju::solver::DEFAULT_HASH_MB)]
        hash: usize,
        #[command(flatten)]
        dir: DirArg,
        #[command(flatten)]
        rules: RulesArg,
        /// 连将杀: every move of the side to move must give check, as many compositions
        /// stipulate (the shortest win by checks alone; the tables are not read).
        #[arg(long)]
        checks_only: bool,
        /// 将死 only: the win must end in checkmate, a stalemate (困毙) does not count, as
        /// for a composed mate (the tables are not read).
        #[arg(long)]
        mate_only: bool,
        /// depth-first (passes two plies deeper each, on every core: the quickest for
        /// short proofs) or proof-number (df-pn on one core: reaches long wins whose tree
        /// is narrow). Both prove the same shortest lengths.
        #[arg(long, default_value = "depth-first")]
        method: canju::solver::Method,
    },
    /// Puzzle collections: list, show, check answers against perfect play.
    Puzzle {
        #[command(subcommand)]
        action: PuzzleCommand,
    },
    /// A random position from a table, played as a puzzle (the table is built first when
    /// missing).
    Train {
        /// Material: KNPKAABB, 马兵对士象全, 单车对士象全 ...
        material: String,
        /// Seed for the random choice (the same seed, the same position).
        #[arg(long)]
        seed: Option<u64>,
        /// A win of A to B moves (e.g. 5-12).
        #[arg(long)]
        moves: Option<String>,
        /// The side you play: red or black.
        #[arg(long)]
        side: Option<String>,
        /// win (the stronger side) or draw (the weaker side, where at most two moves hold).
        #[arg(long)]
        goal: Option<String>,
        #[command(flatten)]
        dir: DirArg,
        #[command(flatten)]
        rules: RulesArg,
        #[command(flatten)]
        lang: LangArg,
    },
    /// Draw a position as an SVG diagram (grid, river, palaces, pieces as discs with
    /// Chinese characters, arrows and marked points).
    Diagram {
        #[arg(long, value_parser = clap::value_parser!(OsString))]
        fen: Option<OsString>,
        /// The SVG file to write (- for standard output).
        #[arg(short, long)]
        output: PathBuf,
        /// An arrow for a move (any notation, or two points like h2e2); repeatable.
        #[arg(long)]
        arrow: Vec<String>,
        /// A point to circle, like e9; repeatable.
        #[arg(long)]
        mark: Vec<String>,
        /// Black at the bottom.
        #[arg(long)]
        flip: bool,
    },
    /// Measure a saying (马卒难破士相全) or a material over its table: results per side to
    /// move and per condition, the longest win, counter-examples, a verdict; optionally a
    /// heatmap. Tables are built first when missing.
    Theory {
        /// A saying (马卒难破士相全, 单车难胜士象全 …) or a material (KNPKAABB, 马兵对士象全).
        #[arg(required_unless_present = "list")]
        claim: Option<String>,
        /// List the sayings canju knows, with their material, verdict and scope.
        #[arg(long, conflicts_with_all = ["claim", "json", "markdown", "heatmap", "lore"])]
        list: bool,
        /// The report as JSON.
        #[arg(long)]
        json: bool,
        /// The report as Markdown tables.
        #[arg(long)]
        markdown: bool,
        /// Counter-examples to list.
        #[arg(long, default_value_t = 5)]
        limit: usize,
        /// The verdict claimed for the stronger side (win or draw), for a material that is
        /// not a saying, or to test another claim.
        #[arg(long)]
        lore: Option<String>,
        /// A heatmap: the win share when this piece of the stronger side stands on each
        /// point (N, P, C, R, A, B, K, or 马, 兵 …); needs -o.
        #[arg(long)]
        heatmap: Option<String>,
        /// The heatmap's side to move: red (the stronger side) or black (the defence);
        /// default: the saying's, else red.
        #[arg(long)]
        side: Option<String>,
        /// The heatmap's SVG file (- for standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[command(flatten)]
        dir: DirArg,
        #[command(flatten)]
        threads: ThreadsArg,
        #[command(flatten)]
        rules: RulesArg,
    },
    /// Serve a page (puzzles, explorer, theory) and a JSON API (tables, solver, puzzles,
    /// theory) on a local HTTP server.
    Serve {
        /// The address to listen on (localhost unless told otherwise).
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        /// The port (0: any free port; the address is printed).
        #[arg(long, default_value_t = 8080)]
        port: u16,
        #[command(flatten)]
        dir: DirArg,
        /// Open the page in the default browser.
        #[arg(long)]
        open: bool,
        #[command(flatten)]
        rules: RulesArg,
        /// Decompressed blocks kept per table, in MB (a table never takes more than its
        /// own size: 马兵对士象全 is 94 MB whole).
        #[arg(long, default_value_t = 128, value_parser = clap::value_parser!(u32).range(1..=65536))]
        cache_mb: u32,
        /// Seconds a connection may stay idle, or take to send a request's head, before
        /// the server closes it.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=3600))]
        idle_timeout: u32,
        /// A name the server answers to besides its own address and localhost (and the
        /// --host name), e.g. behind a proxy; repeatable. A request with any other Host is
        /// refused (403), so that a web page cannot reach the server by rebinding its name.
        #[arg(long, value_name = "NAME")]
        allow_host: Vec<String>,
    },
    /// Run as an engine for Xiangqi GUIs over UCI (or UCCI): the tables' perfect moves in
    /// their material, the solver's proven mates elsewhere, and a labelled fallback move.
    Uci {
        #[command(flatten)]
        dir: DirArg,
        #[command(flatten)]
        rules: RulesArg,
    },
    /// Draw a position on the terminal.
    Show {
        #[arg(long, value_parser = clap::value_parser!(OsString))]
        fen: Option<OsString>,
        /// Plain letters and coordinates (the default when output is not a terminal).
        #[arg(long)]
        ascii: bool,
    },
}

#[derive(Subcommand, Debug)]
enum PuzzleCommand {
    /// The puzzles: id, goal, title, difficulty, tags.
    List {
        /// Only puzzles with this tag (马后炮, 杀法, 连将杀, …).
        #[arg(long)]
        tag: Option<String>,
        /// Only this collection (endgames, mates, patterns, compositions, checks,
        /// shiqingyaqu, lanke, or one of --puzzles).
        #[arg(long)]
        collection: Option<String>,
        /// Only these: clean (solved without help), helped (solved with a hint or the
        /// solution), failed, untried, or due (for review now).
        #[arg(long)]
        progress: Option<String>,
        /// Only puzzles rated at least this.
        #[arg(long)]
        min_rating: Option<i32>,
        /// Only puzzles rated at most this.
        #[arg(long)]
        max_rating: Option<i32>,
        /// Order: file (the collections' order, the default), rating (easiest first) or
        /// due (soonest review first).
        #[arg(long, default_value = "file")]
        sort: String,
        /// An array of {"id", "title", "title_en", "collection", "source", "fen", "goal",
        /// "moves", "checks", "mate", "line", "tags", "tags_en", "difficulty", "rating",
        /// "progress", "due"}.
        #[arg(long)]
        json: bool,
        /// A directory of collections (*.toml) instead of the built-in ones.
        #[arg(long)]
        puzzles: Option<PathBuf>,
        #[command(flatten)]
        lang: LangArg,
    },
    /// Play a puzzle (the next one to do without ID): moves in any notation, or hint, undo,
    /// solution, board, quit; reads standard input line by line when it is not a terminal.
    Play {
        /// The puzzle (its id, as `puzzle list` gives it); without one, the puzzle due for
        /// review, else the untried one rated nearest the player.
        id: Option<String>,
        /// A directory of collections (*.toml) instead of the built-in ones.
        #[arg(long)]
        puzzles: Option<PathBuf>,
        #[command(flatten)]
        dir: DirArg,
        #[command(flatten)]
        rules: RulesArg,
        #[command(flatten)]
        lang: LangArg,
    },
    /// Forget the recorded progress.
    Reset,
    /// Add compositions from a PGN (with a FEN tag) or DhtmlXQ file to a collection; each is
    /// checked under perfect play first.
    Import {
        file: PathBuf,
        #[arg(long)]
        collection: String,
        /// For a composition without moves: the bounds of the proof that gives its line.
        #[command(flatten)]
        proof: ProofArgs,
        /// The collections' directory (default: puzzles).
        #[arg(long)]
        puzzles: Option<PathBuf>,
        #[command(flatten)]
        dir: DirArg,
        #[command(flatten)]
        rules: RulesArg,
    },
    /// Check a collection's stated results: every composition of a transcription (any
    /// format `import` reads) is solved and compared with the result the book states.
    Audit {
        /// The transcription: PGN (with a FEN tag), DhtmlXQ, a DhtmlXQ register (JSON with
        /// "details") or a FEN list with [FEN_INDEX] tags.
        file: PathBuf,
        #[command(flatten)]
        proof: ProofArgs,
        /// A stated draw that no win refutes is played out to a position the tables decide,
        /// each move safe from a forced loss within this many moves; 0 skips it.
        #[arg(long, default_value_t = 3)]
        draw_moves: u32,
        /// Seconds that line may take.
        #[arg(long, default_value_t = 10.0)]
        draw_time: f64,
        /// Print the report as JSON: each composition's finding, win, line and time, and the
        /// counts.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        threads: ThreadsArg,
        #[command(flatten)]
        dir: DirArg,
        #[command(flatten)]
        rules: RulesArg,
    },
    /// A puzzle's board, goal, stipulation and source.
    Show {
        id: String,
        #[arg(long)]
        puzzles: Option<PathBuf>,
        #[command(flatten)]
        lang: LangArg,
    },
    /// Check moves against perfect play: the player's moves alone (canju defends) or the
    /// whole line; exit 0 when they solve the puzzle, 1 at the first mistake.
    Check {
        id: String,
        /// Moves in any notation.
        #[arg(required = true)]
        moves: Vec<String>,
        #[arg(long)]
        json: bool,
        #[arg(long)]
        puzzles: Option<PathBuf>,
        #[command(flatten)]
        dir: DirArg,
        #[command(flatten)]
        rules: RulesArg,
    },
    /// Prove that puzzles hold under perfect play, as the test suite does: the goal within
    /// the stipulation (the shortest win), every move of the player's line keeping it, a
    /// win's line ending in mate (a long composition's line proven whole); exit 1 when one
    /// does not.
    Verify {
        /// Only these puzzles (ids); default every puzzle of the collections chosen.
        ids: Vec<String>,
        /// Only this collection's puzzles.
        #[arg(long)]
        collection: Option<String>,
        /// Only the long compositions (`long = true`, judged by proof-number search).
        #[arg(long)]
        long: bool,
        #[arg(long)]
        puzzles: Option<PathBuf>,
        #[command(flatten)]
        dir: DirArg,
        #[command(flatten)]
        rules: RulesArg,
    },
}

/// The bounds of the proofs that check a composition's stated result (`puzzle audit`,
/// `puzzle import` of compositions without moves).
#[derive(clap::Args, Debug)]
pub struct ProofArgs {
    /// The bound of the proof by any moves, in moves of the side to move.
    #[arg(long, default_value_t = 8)]
    pub max_moves: u32,
    /// The bound of the proof by checks alone (连将杀), tried when the first finds no win;
    /// 0 skips it.
    #[arg(long, default_value_t = 30)]
    pub checks_moves: u32,
    /// Seconds each proof may take.
    #[arg(long, default_value_t = 10.0)]
    pub time: f64,
    /// The bound of the long proof (proof-number search, any moves), tried when neither of
    /// the first two finds a win; 0 skips it.
    #[arg(long, default_value_t = 40)]
    pub long_moves: u32,
    /// Seconds the long proof may take.
    #[arg(long, default_value_t = 60.0)]
    pub long_time: f64,
    /// The result to take where the transcription states none: 红先胜 or 红先和.
    #[arg(long)]
    pub assume: Option<String>,
}

/// A failure to report: one line on standard error and an exit code.
#[derive(Debug)]
pub struct CliError {
    pub code: u8,
    pub message: String,
}

impl CliError {
    /// Bad input from the user (exit code 2).
    pub fn input(message: impl fmt::Display) -> CliError {
        CliError {
            code: 2,
            message: message.to_string(),
        }
    }
}

pub type CliResult = Result<(), CliError>;

/// A file that could not be read or written (exit code 1), in plain words.
pub fn file_error(path: &std::path::Path, e: &std::io::Error) -> CliError {
    CliError {
        code: 1,
        message: format!(
            "{}: {}",
            path.display(),
            canju::tablebase::format::io_message(e)
        ),
    }
}

/// Reads `--fen` (raw bytes, so that non-UTF-8 is an error and not a crash), or the start
/// position when it is absent.
/// Prints a report as pretty JSON on standard output.
pub fn print_json(value: &impl serde::Serialize) -> CliResult {
    outln!(
        "{}",
        serde_json::to_string_pretty(value).map_err(CliError::input)?
    );
    Ok(())
}

pub fn position_arg(fen: &Option<OsString>) -> Result<Position, CliError> {
    match fen {
        None => Ok(Position::start()),
        Some(text) => canju::game::fen::parse_bytes(text.as_encoded_bytes())
            .map_err(|e| CliError::input(format!("--fen: {e}"))),
    }
}

/// Help and version go to standard output; a bad argument is one line on standard error
/// (clap's first line, without its usage block), exit code 2.
fn argument_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            out!("{}", e.render());
            crate::output::flush();
            ExitCode::SUCCESS
        }
        _ => {
            let text = e.render().to_string();
            let mut lines = text.lines();
            let first = lines.next().unwrap_or("bad arguments");
            let first = first.strip_prefix("error: ").unwrap_or(first);
            // "the following required arguments were not provided:" names them on the
            // indented lines below it
            let named: Vec<&str> = if first.ends_with(':') {
                lines
                    .take_while(|l| l.starts_with("  "))
                    .map(str::trim)
                    .collect()
            } else {
                Vec::new()
            };
            if named.is_empty() {
                errln!("canju: error: {first} (see canju --help)");
            } else {
                errln!(
                    "canju: error: {first} {} (see canju --help)",
                    named.join(", ")
                );
            }
            ExitCode::from(2)
        }
    }
}

/// What the command line leaves to `main`: a command done (its exit code), or the server
/// to start, which the command line does not hold.
pub enum Job {
    /// The command ran; exit with this code.
    Done(ExitCode),
    /// `canju serve` with these options.
    Serve(ServeOptions),
}

/// `canju serve`'s options, read and checked.
pub struct ServeOptions {
    pub host: String,
    pub port: u16,
    pub dir: PathBuf,
    pub open: bool,
    pub rules: Rules,
    pub cache_mb: usize,
    /// How long a connection may be idle, or take to send a request's head.
    pub idle_timeout: std::time::Duration,
    /// Names the server answers to besides its own address and localhost.
    pub allow_hosts: Vec<String>,
}

/// Parses the arguments and runs the command (all but the server's).
pub fn run() -> Job {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return Job::Done(argument_error(e)),
    };
    let result = match cli.command {
        None => main_job::run(),
        Some(Command::Perft { fen, depth, divide }) => perft::run(&fen, depth, divide),
        Some(Command::Moves {
            fen,
            notation,
            ascii_digits,
            attacks,
            json,
        }) => board::moves(&fen, notation, ascii_digits, attacks, json),
        Some(Command::Apply { fen, moves }) => board::apply(&fen, &moves),
        Some(Command::Show { fen, ascii }) => board::show(&fen, ascii),
        Some(Command::Uci {
            dir: DirArg { dir },
            rules: RulesArg { rules },
        }) => common::table_dir(&dir).and_then(|d| uci::run(d, rules)),
        Some(Command::Diagram {
            fen,
            output,
            arrow,
            mark,
            flip,
        }) => board::diagram(&fen, &output, &arrow, &mark, flip),
        Some(Command::Theory {
            claim,
            list,
            json,
            markdown,
            limit,
            lore,
            heatmap,
            side,
            output,
            dir: DirArg { dir },
            threads: ThreadsArg { threads },
            rules: RulesArg { rules },
        }) => match claim {
            Some(claim) if !list => theory::run(theory::TheoryArgs {
                claim: &claim,
                rules,
                json,
                markdown,
                limit,
                lore: &lore,
                heatmap: &heatmap,
                side: &side,
                output: &output,
                dir: &dir,
                threads,
            }),
            _ => theory::list(),
        },
        Some(Command::Serve {
            host,
            port,
            dir: DirArg { dir },
            open,
            rules: RulesArg { rules },
            cache_mb,
            idle_timeout,
            allow_host,
        }) => {
            let dir = match common::table_dir(&dir) {
                Ok(d) => d,
                Err(e) => return Job::Done(finish(Err(e))),
            };
            return Job::Serve(ServeOptions {
                host,
                port,
                dir,
                open,
                rules,
                cache_mb: cache_mb as usize,
                idle_timeout: std::time::Duration::from_secs(idle_timeout.into()),
                allow_hosts: allow_host,
            });
        }
        Some(Command::Train {
            material,
            seed,
            moves,
            side,
            goal,
            dir: DirArg { dir },
            rules: RulesArg { rules },
            lang,
        }) => lang.resolve().and_then(|lang| {
            puzzle::train(puzzle::TrainArgs {
                lang,
                material: &material,
                seed,
                moves: &moves,
                side: &side,
                goal: &goal,
                dir: &dir,
                rules,
            })
        }),
        Some(Command::Puzzle { action }) => match action {
            PuzzleCommand::List {
                tag,
                collection,
                progress,
                min_rating,
                max_rating,
                sort,
                json,
                puzzles,
                lang,
            } => lang.resolve().and_then(|lang| {
                puzzle::list(puzzle::ListArgs {
                    dir: &puzzles,
                    tag: &tag,
                    collection: &collection,
                    progress: &progress,
                    ratings: (min_rating, max_rating),
                    sort: &sort,
                    json,
                    lang,
                })
            }),
            PuzzleCommand::Show { id, puzzles, lang } => lang
                .resolve()
                .and_then(|lang| puzzle::show(&puzzles, &id, lang)),
            PuzzleCommand::Play {
                id,
                puzzles,
                dir: DirArg { dir },
                rules: RulesArg { rules },
                lang,
            } => lang
                .resolve()
                .and_then(|lang| puzzle::play_cmd(&puzzles, &dir, &id, rules, lang)),
            PuzzleCommand::Reset => puzzle::reset(),
            PuzzleCommand::Import {
                file,
                collection,
                proof,
                puzzles,
                dir: DirArg { dir },
                rules: RulesArg { rules },
            } => puzzle::import(&file, &collection, &proof, &puzzles, &dir, rules),
            PuzzleCommand::Audit {
                file,
                proof,
                draw_moves,
                draw_time,
                json,
                threads: ThreadsArg { threads },
                dir: DirArg { dir },
                rules: RulesArg { rules },
            } => puzzle::audit(puzzle::AuditArgs {
                file: &file,
                proof: &proof,
                draw_moves,
                draw_time,
                json,
                threads,
                dir: &dir,
                rules,
            }),
            PuzzleCommand::Check {
                id,
                moves,
                json,
                puzzles,
                dir: DirArg { dir },
                rules: RulesArg { rules },
            } => puzzle::check(&puzzles, &dir, &id, &moves, json, rules),
            PuzzleCommand::Verify {
                ids,
                collection,
                long,
                puzzles,
                dir: DirArg { dir },
                rules: RulesArg { rules },
            } => puzzle::verify(&puzzles, &dir, &ids, collection.as_deref(), long, rules),
        },
        Some(Command::Solve {
            fen,
            max_moves,
            threads: ThreadsArg { threads },
            time,
            notation,
            json,
            hash,
            dir: DirArg { dir },
            rules: RulesArg { rules },
            checks_only,
            mate_only,
            method,
        }) => solve::run(solve::SolveArgs {
            fen: &fen,
            max_moves,
            threads,
            time,
            notation,
            json,
            hash,
            dir: &dir,
            rules,
            checks_only,
            mate_only,
            method,
        }),
        Some(Command::Gen {
            material,
            list,
            max_entries,
            dir: DirArg { dir },
            threads: ThreadsArg { threads },
            no_deps,
            rules: RulesArg { rules },
            checkpoint_minutes,
        }) => tb::gen_cmd(tb::GenArgs {
            target: &material,
            list,
            max_entries: &max_entries,
            dir: &dir,
            threads,
            no_deps,
            rules,
            checkpoint_minutes,
        }),
        Some(Command::Plan {
            material,
            format,
            dir: DirArg { dir },
            bin,
            threads: ThreadsArg { threads },
            rules: RulesArg { rules },
        }) => plan::run(&material, &format, &dir, &bin, threads, rules),
        Some(Command::Deps { material }) => tb::deps_cmd(&material),
        Some(Command::Info {
            material,
            count,
            dir: DirArg { dir },
            threads: ThreadsArg { threads },
            rules: RulesArg { rules },
        }) => tb::info_cmd(&material, &dir, count, threads, rules),
        Some(Command::Probe {
            fen,
            notation,
            json,
            generate,
            dir: DirArg { dir },
            threads: ThreadsArg { threads },
            rules: RulesArg { rules },
        }) => tb::probe_cmd(tb::ProbeArgs {
            fen: &fen,
            notation,
            json,
            generate,
            dir: &dir,
            threads,
            rules,
        }),
        Some(Command::Stats {
            material,
            json,
            dir: DirArg { dir },
            rules: RulesArg { rules },
        }) => tb::stats_cmd(&material, &dir, json, rules),
        Some(Command::Verify {
            material,
            dir: DirArg { dir },
            threads: ThreadsArg { threads },
            with_deps,
            rules: RulesArg { rules },
        }) => tb::verify_cmd(&material, &dir, threads, with_deps, rules),
        Some(Command::Diff {
            material,
            rules: RulesArg { rules },
            against,
            by_clause,
            examples,
            notation,
            json,
            dir: DirArg { dir },
            threads: ThreadsArg { threads },
        }) => diff::run(diff::DiffArgs {
            material: &material,
            rules,
            against,
            by_clause,
            examples,
            notation,
            json,
            dir: &dir,
            threads,
        }),
    };
    Job::Done(finish(result))
}

/// Ends a command: standard output flushed, and a failure as one line on standard error
/// with its exit code.
pub fn finish(result: CliResult) -> ExitCode {
    crate::output::flush();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            errln!("canju: error: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}
