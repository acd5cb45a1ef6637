//! Serving stateright's explorer for the model, behind our own front
//! ([`super::front`]): the user's address is bound here and kept (so the
//! port in the printed link is the one served, with no gap for another
//! process to take it), and stateright's server listens on a loopback
//! port of its own that only the front talks to.
//!
//! `CheckerBuilder::serve` blocks for good (stateright 0.31
//! `checker/explorer.rs` joins its web thread, which loops forever),
//! starts an on-demand checker that idles until the page posts
//! `/.runtocompletion`, and answers `/.states/<init>/<action>/…` by
//! replaying the path from the initial state; it ignores the model's
//! depth bound. It panics on an address it cannot bind and on a client
//! that hung up; a server that died is restarted on a fresh port.

use super::front;
use super::model::ExploredMemtxModel;
use crate::model::MemtxModel;
use stateright::Model;
use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::Arc;

/// Whether every address `addr` resolves to is a loopback address.
pub fn is_loopback(addr: &str) -> Result<bool, String> {
    let addrs: Vec<SocketAddr> = addr
        .to_socket_addrs()
        .map_err(|e| format!("--addr {addr:?}: not an address to listen on: {e}"))?
        .collect();
    if addrs.is_empty() {
        return Err(format!("--addr {addr:?}: resolves to no address"));
    }
    Ok(addrs.iter().all(|a| a.ip().is_loopback()))
}

/// Listens on `addr` (port 0: one the system picks, which the
/// listener's `local_addr` names).
pub fn listen(addr: &str) -> Result<TcpListener, String> {
    TcpListener::bind(addr).map_err(|e| format!("--addr {addr}: cannot listen: {e}"))
}

/// Serves the explorer for `model` on `addr`; returns only when the
/// address cannot be listened on.
pub fn serve(model: MemtxModel, addr: &str) -> Result<(), String> {
    serve_on(model, listen(addr)?)
}

/// Serves the explorer for `model` (wrapped to show its steps and
/// pictures) on `listener`, for good.
pub fn serve_on(model: MemtxModel, listener: TcpListener) -> Result<(), String> {
    let backend = Arc::new(AtomicU16::new(0));
    let port = Arc::clone(&backend);
    std::thread::Builder::new()
        .name("explorer-checker".into())
        .spawn(move || run_backend(&model, &port))
        .map_err(|e| format!("cannot start the explorer: {e}"))?;
    front::run(listener, backend)
}

/// Runs stateright's server on a free loopback port, publishing the port
/// in `port`, and again on another when it dies.
fn run_backend(model: &MemtxModel, port: &AtomicU16) {
    loop {
        let free = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr());
        if let Ok(addr) = free {
            port.store(addr.port(), Ordering::SeqCst);
            let m = ExploredMemtxModel(model.clone());
            let run = catch_unwind(AssertUnwindSafe(|| {
                let _ = m.checker().serve(addr);
            }));
            port.store(0, Ordering::SeqCst);
            if run.is_ok() {
                return;
            }
            eprintln!("memtx-check: the explorer's checker stopped unexpectedly; restarting");
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_addresses() {
        assert_eq!(is_loopback("127.0.0.1:3000"), Ok(true));
        assert_eq!(is_loopback("[::1]:3000"), Ok(true));
        assert_eq!(is_loopback("0.0.0.0:3000"), Ok(false));
        assert!(is_loopback("not an address").is_err());
    }
}
