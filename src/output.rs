//! Standard output that never panics: a closed pipe (`canju moves | head -1`) ends the
//! command quietly with exit 0, as Unix tools do; any other failure to write (a full disk,
//! `>/dev/full`) is a one-line error with exit 1.

use std::fmt;
use std::io::{self, Write};

/// Writes formatted text to standard output, or ends the process as described above.
pub fn write(args: fmt::Arguments<'_>, newline: bool) {
    let mut out = io::stdout().lock();
    let mut result = out.write_fmt(args);
    if newline && result.is_ok() {
        result = out.write_all(b"\n");
    }
    if let Err(e) = result {
        drop(out);
        fail(&e);
    }
}

/// Flushes standard output at the end of a command, or ends the process as above.
pub fn flush() {
    if let Err(e) = io::stdout().lock().flush() {
        fail(&e);
    }
}

fn fail(e: &io::Error) -> ! {
    if e.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    error_line(format_args!(
        "canju: error: standard output: {}",
        canju::tablebase::format::io_message(e)
    ));
    std::process::exit(1);
}

/// Writes a line to standard error, ignoring failure (there is nowhere left to report it).
pub fn error_line(args: fmt::Arguments<'_>) {
    let mut err = io::stderr().lock();
    let _ = err.write_fmt(args);
    let _ = err.write_all(b"\n");
}

/// `println!` for commands: see the module's documentation.
macro_rules! outln {
    () => {
        $crate::output::write(format_args!(""), true)
    };
    ($($arg:tt)*) => {
        $crate::output::write(format_args!($($arg)*), true)
    };
}

/// `print!` for commands: see the module's documentation.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::write(format_args!($($arg)*), false)
    };
}

/// `eprintln!` that never panics.
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::output::error_line(format_args!($($arg)*))
    };
}
