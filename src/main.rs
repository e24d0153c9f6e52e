//! The `canju` command: the command line ([`cli`]) and the local server ([`server`]), two
//! front ends over the library; neither imports the other, and this file joins them.

#[macro_use]
mod output;

mod cli;
mod remedy;
mod server;

fn main() -> std::process::ExitCode {
    match cli::run() {
        cli::Job::Done(code) => code,
        cli::Job::Serve(o) => cli::finish(
            server::run(server::Config {
                host: o.host,
                port: o.port,
                dir: o.dir,
                open: o.open,
                rules: o.rules,
                cache_mb: o.cache_mb,
                idle_timeout: o.idle_timeout,
                allow_hosts: o.allow_hosts,
            })
            .map_err(|e| cli::CliError {
                code: e.exit_code(),
                message: e.to_string(),
            }),
        ),
    }
}
