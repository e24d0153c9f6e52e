//! The integration tests, one binary (a binary each, 27 of them, would each be linked with
//! the release profile's LTO): each module drives the library or the real `canju` binary.

mod common;

mod browser;
mod cli;
mod collections;
mod composed;
mod damaged;
mod diagram;
mod docs;
mod fuzz;
mod hostile;
mod json_output;
mod layout;
mod library;
mod perft;
mod plan;
mod properties;
mod puzzles;
mod rules;
mod serve;
mod serve_hardening;
mod solver;
mod solver_rule;
mod special_files;
mod tablebase;
mod tb_cli;
mod theory;
mod uci;
mod wide;
