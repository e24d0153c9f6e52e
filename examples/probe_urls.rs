//! Prints `/api/probe` URLs of random legal positions of a material, for load tests of
//! `canju serve` over many positions (not one cached answer):
//!
//! ```sh
//! cargo run --release --example probe_urls -- KNPKAABB 2000 8080 > /tmp/urls.txt
//! oha -n 50000 -c 64 --urls-from-file /tmp/urls.txt
//! ```
//!
//! Arguments: material, how many URLs (default 1000), port (default 8080), seed (default 1).

use canju::Color;
use canju::game::material::Material;
use canju::tablebase::index::Layout;
use rand::{Rng, SeedableRng};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let material: Material = args
        .first()
        .map_or("KNPKAABB", String::as_str)
        .parse()
        .expect("a material such as KNPKAABB");
    let count: usize = args.get(1).map_or(1000, |s| s.parse().expect("a count"));
    let port: u16 = args.get(2).map_or(8080, |s| s.parse().expect("a port"));
    let seed: u64 = args.get(3).map_or(1, |s| s.parse().expect("a seed"));
    let layout = Layout::new(material.canonical()).expect("at most 10 pieces");
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut printed = 0;
    while printed < count {
        let index = rng.random_range(0..layout.size());
        let turn = if rng.random_bool(0.5) {
            Color::Red
        } else {
            Color::Black
        };
        let Some(pos) = layout.position(index, turn) else {
            continue;
        };
        // legal: the side not to move is not in check, and the text reads back
        if pos.in_check(!turn) || pos.to_string().parse::<canju::Position>().is_err() {
            continue;
        }
        let fen: String = pos
            .to_string()
            .bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' => (b as char).to_string(),
                _ => format!("%{b:02X}"),
            })
            .collect();
        println!("http://127.0.0.1:{port}/api/probe?fen={fen}");
        printed += 1;
    }
}
