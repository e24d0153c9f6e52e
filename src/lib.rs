//! canju (残局): a Xiangqi endgame library.
//!
//! The rules engine ([`Position`], FEN, legal moves and un-moves, perft) is the base that
//! the tablebase generator and the trainer stand on. Coordinates follow ICCS: files `a`..`i`
//! from red's left, ranks `0`..`9` from red's back rank.
//!
//! ```
//! use canju::Position;
//! use canju::notation::{format_move, parse_move, Notation, Style};
//!
//! let pos = Position::start();
//! assert_eq!(pos.legal_moves().len(), 44);
//! let m = parse_move(&pos, "炮二平五").unwrap();
//! assert_eq!(m.to_string(), "h2e2");
//! assert_eq!(format_move(&pos, m, Notation::Wxf, Style::default()), "C2.5");
//! assert_eq!(canju::game::perft::perft(&mut pos.clone(), 2), 1920);
//! ```
//!
//! Tables are built with [`tablebase::build::build`] and probed through
//! [`tablebase::Tablebase`]:
//!
//! ```no_run
//! use canju::tablebase::Tablebase;
//!
//! let tb = Tablebase::new("tablebases");
//! let pos: canju::Position = "3k5/4a4/4b4/9/9/9/4P4/9/4N4/4K4 w".parse().unwrap();
//! let value = tb.probe(&pos).unwrap(); // after `canju gen KNPKAB`
//! println!("{value}");
//! ```
//!
//! What the command line and the server show is a library call each, with a report that
//! serializes: [`tablebase::report`] (a probed position with every move ranked, a table's
//! statistics), [`solver`] with [`solver::report::SolveReport`], a puzzle played move by
//! move ([`puzzle::attempt::Attempt`]) or judged whole ([`puzzle::check::check_line`]),
//! [`theory::measure`], [`main_job::run`]:
//!
//! ```
//! use canju::puzzle::attempt::{Attempt, Status};
//! use canju::puzzle::{Judge, load_builtin};
//!
//! // 实战杀局 第10题: a mate in 2 the solver judges (no table needed)
//! let all = load_builtin().unwrap();
//! let p = all.iter().find(|p| p.entry.id == "mate-010").unwrap();
//! let judge = Judge::new(None);
//! let mut attempt = Attempt::new(p, &judge);
//! let first = attempt.play_text("卒４平５").unwrap();
//! let defence = first.defence.unwrap();
//! assert_eq!((defence.chinese.as_str(), defence.wxf.as_str()), ("帅五平六", "K5.6"));
//! attempt.play_text("车６进１").unwrap();
//! assert_eq!(attempt.status(), &Status::Solved { clean: true });
//! ```

#![warn(missing_docs)]

/// A fingerprint of the library's source code (every file under `src/` but the
/// binary's front ends), made when it is compiled: what canju resumes or trusts across runs (a build's
/// checkpoint, a table's move-limit flags) records it and is only taken back by a build of
/// the same code.
pub const SOURCE_FINGERPRINT: &str = env!("CANJU_SOURCE_FINGERPRINT");

pub mod files;
pub mod game;
pub mod main_job;
pub mod notation;
mod prefetch;
pub mod puzzle;
pub mod render;
pub mod solver;
pub mod system;
pub mod tablebase;
pub mod theory;

pub use game::fen::FenError;
pub use game::material::Material;
pub use game::movegen::{Attackers, GameEnd, IllegalMove, Legality, UnmoveLegality};
pub use game::moves::{Move, MoveList};
pub use game::piece::{Color, Kind, Piece};
pub use game::position::{Position, PositionError, START_FEN, Setup, Unreachable};
pub use game::square::{File, Rank, Square};
