//! Serving stateright's explorer for the model. `CheckerBuilder::serve`
//! blocks for good (stateright 0.31 `checker/explorer.rs` joins its web
//! thread, which loops forever), starts an on-demand checker that idles
//! until the page posts `/.runtocompletion`, and answers
//! `/.states/<init>/<action>/…` by replaying the path from the initial
//! state; it ignores the model's depth bound.
//!
//! Two of its failure modes are panics inside stateright: binding a busy
//! address, and answering a client that hung up. So the address is bound
//! once first (to report a busy port as an error), and a server that died
//! is restarted.

use super::model::ExploredMemtxModel;
use crate::model::MemtxModel;
use stateright::Model;
use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::panic::{catch_unwind, AssertUnwindSafe};

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

/// Checks that `addr` can be listened on now.
pub fn check_bindable(addr: &str) -> Result<(), String> {
    bound_address(addr).map(drop)
}

/// The address listening on `addr` actually gets: port 0 becomes the
/// port the system picked, so the link printed is one that works. It is
/// free again on return, for stateright to bind (which takes only an
/// address); the gap is a moment, and a port taken in it is an error.
pub fn bound_address(addr: &str) -> Result<String, String> {
    TcpListener::bind(addr)
        .and_then(|l| l.local_addr())
        .map(|a| a.to_string())
        .map_err(|e| format!("--addr {addr}: cannot listen: {e}"))
}

/// Serves the explorer for `model` (wrapped to show its steps and
/// pictures) on `addr`; never returns unless the
/// address cannot be listened on (at start, or after a server crash).
pub fn serve(model: MemtxModel, addr: &str) -> Result<(), String> {
    check_bindable(addr)?;
    loop {
        let m = ExploredMemtxModel(model.clone());
        let run = catch_unwind(AssertUnwindSafe(|| {
            let _ = m.checker().serve(addr);
        }));
        if run.is_ok() {
            return Ok(());
        }
        eprintln!("memtx-check: the explorer's web server stopped unexpectedly; restarting");
        std::thread::sleep(std::time::Duration::from_millis(200));
        check_bindable(addr)?;
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
