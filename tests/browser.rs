//! The page in a real browser: headless Chromium driven through WebDriver (chromedriver)
//! opens a puzzle, clicks a piece and a target, and sees canju's reply and the feedback;
//! then the explorer and the theory tab. `.ci/run` installs Chromium and chromedriver
//! (Debian packages `chromium` and `chromium-driver`); without them this test fails and
//! says so, unless `CANJU_SKIP_BROWSER=1` asks to skip it (which it prints).
//!
//! `CANJU_SCREENSHOTS=DIR` saves a screenshot of each page there (the pictures of docs/api.md).

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{ClientBuilder, Locator};

mod common;

use common::{Server, TempDir, build_tables};

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .chain([
            PathBuf::from("/usr/bin"),
            PathBuf::from("/usr/lib/chromium"),
        ])
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits until `f` holds, polling, for at most `secs` seconds.
async fn wait_for<F, Fut>(secs: u64, what: &str, mut f: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(secs) {
        if f().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("timed out waiting for {what}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_puzzle_played_by_clicks_in_headless_chromium() {
    let (Some(driver), Some(chromium)) = (
        on_path("chromedriver"),
        on_path("chromium").or_else(|| on_path("chromium-browser")),
    ) else {
        if std::env::var_os("CANJU_SKIP_BROWSER").is_some() {
            println!(
                "SKIPPED: chromium or chromedriver is not installed (CANJU_SKIP_BROWSER is set)"
            );
            return;
        }
        panic!(
            "chromium and chromedriver are needed for the browser test: install the Debian packages \
             chromium and chromium-driver (.ci/run does), or set CANJU_SKIP_BROWSER=1 to skip it"
        );
    };
    let dir = TempDir::new("browser");
    let tables = dir.0.join("tables");
    let home = dir.0.join("home");
    std::fs::create_dir_all(&home).unwrap();
    // the server's default rule set: asian
    build_tables(
        &canju::tablebase::Tablebase::with_rules(&tables, canju::tablebase::Rules::Asian),
        "KNKA",
    );
    let server = Server::start(&tables, &home);
    let url = format!("http://{}", server.addr);
    let port = free_port();
    let _driver = Killed(
        Command::new(&driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        serde_json::json!({
            "binary": chromium,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1300,1150"],
        }),
    );
    let webdriver = format!("http://127.0.0.1:{port}");
    let mut client = None;
    for _ in 0..50 {
        match ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps.clone())
            .connect(&webdriver)
            .await
        {
            Ok(c) => {
                client = Some(c);
                break;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
    let c = client.expect("chromedriver did not start a session");
    let shots = std::env::var_os("CANJU_SCREENSHOTS").map(PathBuf::from);

    // the puzzle 马后炮 (pattern-002): 帅五进一 is the first move of the mate
    c.goto(&format!("{url}/#puzzles")).await.unwrap();
    wait_for(20, "the puzzle list", || async {
        c.find(Locator::Css("#puzzle-list li[data-id='pattern-002']"))
            .await
            .is_ok()
    })
    .await;
    c.find(Locator::Css("#puzzle-list li[data-id='pattern-002']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(20, "the puzzle's board", || async {
        let title = c.find(Locator::Css("#puzzle-title")).await.unwrap();
        title.text().await.unwrap().starts_with("pattern-002")
            && c.find(Locator::Css("#puzzle-board g.piece[data-square='e0']"))
                .await
                .is_ok()
    })
    .await;
    // click the general, see its targets, click e1
    c.find(Locator::Css("#puzzle-board rect.point[data-square='e0']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(10, "the legal targets", || async {
        c.find(Locator::Css(
            "#puzzle-board circle.target[data-square='e1']",
        ))
        .await
        .is_ok()
    })
    .await;
    c.find(Locator::Css("#puzzle-board rect.point[data-square='e1']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    // the feedback, then canju's reply on the board and in the move list
    wait_for(30, "the feedback and the reply", || async {
        let fb = c.find(Locator::Css("#feedback")).await.unwrap();
        let text = fb.text().await.unwrap_or_default();
        let moves = c
            .find_all(Locator::Css("#puzzle-moves li"))
            .await
            .map(|v| v.len())
            .unwrap_or(0);
        text.contains("最佳") && text.contains("reply") && moves == 2
    })
    .await;
    let moves = c.find_all(Locator::Css("#puzzle-moves li")).await.unwrap();
    assert!(moves[0].text().await.unwrap().contains("帅五进一"));
    // the reply is drawn: the general has left e0 and an arrow shows the answer
    assert!(
        c.find(Locator::Css("#puzzle-board g.piece[data-square='e1']"))
            .await
            .is_ok()
    );
    assert!(
        c.find(Locator::Css("#puzzle-board line.arrow"))
            .await
            .is_ok()
    );
    if let Some(d) = &shots {
        std::fs::create_dir_all(d).unwrap();
        std::fs::write(d.join("puzzles.png"), c.screenshot().await.unwrap()).unwrap();
    }
    // a wrong move is called a mistake, with the refutation
    c.find(Locator::Css("#p-undo"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(10, "the undone position", || async {
        c.find(Locator::Css("#puzzle-board g.piece[data-square='e0']"))
            .await
            .is_ok()
    })
    .await;
    for sq in ["c5", "b7"] {
        c.find(Locator::Css(&format!(
            "#puzzle-board rect.point[data-square='{sq}']"
        )))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    wait_for(30, "the mistake", || async {
        let fb = c.find(Locator::Css("#feedback")).await.unwrap();
        fb.text().await.unwrap_or_default().contains("mistake")
    })
    .await;
    // undo, then a hint (an arrow and the move), the solution, and the next puzzle
    let feedback = || async {
        c.find(Locator::Css("#feedback"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap_or_default()
    };
    for (button, want) in [
        ("#p-undo", ""),
        ("#p-hint", "hint: 帅五进一"),
        ("#p-solution", "solution: 1. 帅五进一"),
    ] {
        c.find(Locator::Css(button))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        wait_for(30, want, || async { feedback().await.contains(want) }).await;
    }
    assert!(
        c.find(Locator::Css("#puzzle-board line.arrow"))
            .await
            .is_ok()
    );
    c.find(Locator::Css("#p-next"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(20, "the next puzzle", || async {
        let title = c.find(Locator::Css("#puzzle-title")).await.unwrap();
        let t = title.text().await.unwrap_or_default();
        !t.is_empty() && !t.starts_with("pattern-002")
    })
    .await;

    // the explorer: a table position with every move valued
    c.goto(&format!("{url}/#explorer")).await.unwrap();
    let fen = "3a5/4k4/9/4N4/9/9/9/9/9/3K5 w - - 0 1";
    wait_for(20, "the explorer", || async {
        c.find(Locator::Css("#explorer-board svg")).await.is_ok()
    })
    .await;
    let input = c.find(Locator::Css("#fen")).await.unwrap();
    input.clear().await.unwrap();
    input.send_keys(fen).await.unwrap();
    c.find(Locator::Css("#e-load"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(20, "the moves with their values", || async {
        let rows = c
            .find_all(Locator::Css("#e-moves tbody tr"))
            .await
            .unwrap_or_default();
        let verdict = c.find(Locator::Css("#e-verdict")).await.unwrap();
        !rows.is_empty() && verdict.text().await.unwrap_or_default().contains("KNKA")
    })
    .await;
    if let Some(d) = &shots {
        std::fs::write(d.join("explorer.png"), c.screenshot().await.unwrap()).unwrap();
    }
    // the rule set: the server's (asian) by default, the other on request (not built here)
    let verdict = c.find(Locator::Css("#e-verdict")).await.unwrap();
    let text = verdict.text().await.unwrap();
    assert!(text.contains("rules asian"), "{text}");
    // choosing a rule set re-probes; wait for the verdict line to say `expect`
    for (rules, expect) in [
        ("none", "without the perpetual-check rule"),
        ("asian", "rules asian"),
    ] {
        let choose = format!(
            "const s = document.querySelector('#e-rules'); s.value = '{rules}'; s.dispatchEvent(new Event('change'));"
        );
        c.execute(&choose, vec![]).await.unwrap();
        wait_for(20, expect, || async {
            let t = c
                .find(Locator::Css("#e-verdict"))
                .await
                .unwrap()
                .text()
                .await
                .unwrap_or_default();
            t.contains(expect)
        })
        .await;
    }
    // the solver on request: this win takes 6 moves, so none within 4 is proven
    c.find(Locator::Css("#e-solve"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(30, "the solver's answer", || async {
        let out = c.find(Locator::Css("#e-solution")).await.unwrap();
        out.text()
            .await
            .unwrap_or_default()
            .contains("no forced win within 4 moves (proven)")
    })
    .await;
    // placing a piece: Edit, the red chariot from the palette, the point a5
    c.find(Locator::Css("#e-edit"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    c.find(Locator::Css("#palette button[title='R']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    c.find(Locator::Css("#explorer-board rect.point[data-square='a5']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(20, "the placed chariot", || async {
        c.find(Locator::Css(
            "#explorer-board g.piece[data-square='a5'][data-piece='R']",
        ))
        .await
        .is_ok()
    })
    .await;
    let fen = c
        .find(Locator::Css("#fen"))
        .await
        .unwrap()
        .prop("value")
        .await
        .unwrap()
        .unwrap_or_default();
    assert!(fen.starts_with("3a5/4k4/9/4N4/R8/"), "{fen}");

    // theory: a saying whose tables are built
    c.goto(&format!("{url}/#theory")).await.unwrap();
    wait_for(20, "the sayings", || async {
        c.find(Locator::Css("#t-claim")).await.is_ok()
    })
    .await;
    let claim = c.find(Locator::Css("#t-claim")).await.unwrap();
    claim.clear().await.unwrap();
    claim.send_keys("单马胜单士").await.unwrap();
    c.find(Locator::Css("#t-measure"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(30, "the verdict", || async {
        let v = c.find(Locator::Css("#t-verdict")).await.unwrap();
        v.text()
            .await
            .unwrap_or_default()
            .contains("单马胜单士（马对士）")
    })
    .await;
    c.find(Locator::Css("#t-heat"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(30, "the heatmap", || async {
        c.find_all(Locator::Css("#t-heatmap g.heat"))
            .await
            .map(|v| v.len() == 90)
            .unwrap_or(false)
    })
    .await;
    if let Some(d) = &shots {
        std::fs::write(d.join("theory.png"), c.screenshot().await.unwrap()).unwrap();
    }
    c.close().await.unwrap();
}
