//! The API's errors: every library error a handler meets becomes a status and a one-line
//! message here, in one place, and is sent as `{"error": message}`.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use canju::game::fen::FenError;
use canju::puzzle::PuzzleError;
use canju::puzzle::attempt::AttemptError;
use canju::solver::SolveError;
use canju::tablebase::TableError;
use canju::theory::{ClaimError, TheoryError};

/// An API error: a status and a message.
#[derive(Debug)]
pub struct ApiError(pub StatusCode, pub String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(json!({ "error": self.1 }))).into_response()
    }
}

impl ApiError {
    /// A bad request (400): the client sent what cannot be used.
    pub fn bad(message: impl std::fmt::Display) -> ApiError {
        ApiError(StatusCode::BAD_REQUEST, message.to_string())
    }

    /// A failure of the server itself (a task that panicked, JSON that did not serialize).
    pub fn internal(e: impl std::fmt::Display) -> ApiError {
        ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
    }

    /// Work that was stopped (its time was up, or the server is stopping): 503.
    pub fn stopped() -> ApiError {
        ApiError(
            StatusCode::SERVICE_UNAVAILABLE,
            "the work was stopped before it finished: it took longer than its time or node limit, or the server is stopping".into(),
        )
    }

    /// Work refused or stopped because the server is stopping (Ctrl-C, SIGTERM): 503.
    pub fn closing() -> ApiError {
        ApiError(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server is stopping: no new work starts, and work under way is stopped".into(),
        )
    }

    /// What the server lacks to answer a sound request (a table not built): 409.
    pub fn conflict(message: impl std::fmt::Display) -> ApiError {
        ApiError(StatusCode::CONFLICT, message.to_string())
    }
}

/// A missing table is a 409 (the request is sound, the server lacks what it needs, and
/// the message names the `canju gen` command); anything else is the server's.
impl From<TableError> for ApiError {
    fn from(e: TableError) -> ApiError {
        match e {
            TableError::Missing { .. } => ApiError::conflict(crate::remedy::message(&e)),
            // (a composed position: the request is sound, the tables have no entry for it)
            TableError::Unreachable(_) => ApiError::bad(e),
            e => ApiError::internal(crate::remedy::message(&e)),
        }
    }
}

impl From<TheoryError> for ApiError {
    fn from(e: TheoryError) -> ApiError {
        match e {
            TheoryError::Table(t) => t.into(),
            TheoryError::Claim(c) => ApiError::bad(c),
            TheoryError::Stopped => ApiError::stopped(),
        }
    }
}

impl From<ClaimError> for ApiError {
    fn from(e: ClaimError) -> ApiError {
        ApiError::bad(e)
    }
}

impl From<SolveError> for ApiError {
    fn from(e: SolveError) -> ApiError {
        match e {
            SolveError::Table(t) => t.into(),
            SolveError::Stopped => ApiError::stopped(),
            e => ApiError::bad(e),
        }
    }
}

impl From<PuzzleError> for ApiError {
    fn from(e: PuzzleError) -> ApiError {
        match e {
            PuzzleError::Table(t) => t.into(),
            PuzzleError::Stopped => ApiError::stopped(),
            e => ApiError::internal(e),
        }
    }
}

/// A move that cannot be read is the client's; a failure to judge it is the server's.
impl From<AttemptError> for ApiError {
    fn from(e: AttemptError) -> ApiError {
        match e {
            AttemptError::Move(m) => ApiError::bad(m),
            e @ AttemptError::NotPlayersMove => ApiError::bad(e),
            AttemptError::Puzzle(p) => p.into(),
        }
    }
}

/// A FEN that cannot be read, or a position that cannot be played.
impl From<FenError> for ApiError {
    fn from(e: FenError) -> ApiError {
        ApiError::bad(format!("fen: {e}"))
    }
}

/// Why the server could not start or run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The address cannot be listened on (in use, not allowed, not an address).
    #[error(
        "cannot listen on {host}:{port}: {}",
        canju::tablebase::format::io_message(source)
    )]
    Listen {
        /// The host asked for.
        host: String,
        /// The port asked for.
        port: u16,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The runtime or the socket failed.
    #[error("{what}: {source}")]
    Io {
        /// What failed.
        what: &'static str,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The built-in puzzles could not be read.
    #[error(transparent)]
    Puzzles(#[from] PuzzleError),
}

impl Error {
    /// The process's exit code: 2 for what the user asked (an address), else 1.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Listen { .. } => 2,
            _ => 1,
        }
    }
}
