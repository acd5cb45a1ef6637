//! The hosts file of a run across processes: one `host:port` per process,
//! process I listening on entry I. Blank lines and lines starting with `#`
//! are skipped; every other line is an address. A UTF-8 byte-order mark
//! at the start is not part of the first line. Each error is one line
//! naming the file, the line and the value, a long value cut (issue
//! 28.11: a line of 5 MB was echoed whole).

use std::net::IpAddr;
use std::path::Path;

/// Processes one run across machines may name in its hosts file.
pub const MAX_PROCESSES: usize = 1024;

/// The processes of a run: their addresses, in process order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hosts {
    pub addresses: Vec<String>,
}

impl Hosts {
    /// Reads and checks the hosts file `path` for the run of process
    /// `process`: it must name at least `process + 1` processes.
    pub fn read(path: &Path, process: usize) -> Result<Hosts, String> {
        let text = crate::input::read_text(path).map_err(|e| format!("--hosts: {}", e.0))?;
        Hosts::parse(&path.display().to_string(), &text, process)
    }

    /// [`Hosts::read`] on the text of the file named `name`.
    pub fn parse(name: &str, text: &str, process: usize) -> Result<Hosts, String> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut addresses: Vec<String> = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            check_address(line).map_err(|why| {
                format!(
                    "{name}:{}: {} is not a host:port address: {why}",
                    n + 1,
                    shown(line)
                )
            })?;
            if addresses.iter().any(|a| a == line) {
                return Err(format!(
                    "{name}:{}: {} is named twice: each process needs its own address",
                    n + 1,
                    shown(line)
                ));
            }
            addresses.push(line.to_string());
        }
        if addresses.len() > MAX_PROCESSES {
            return Err(format!(
                "{name}: names {} processes, more than {MAX_PROCESSES}",
                addresses.len()
            ));
        }
        if process >= addresses.len() {
            return Err(format!(
                "{name}: names {} process{}, so there is no process {process} (--process counts from 0)",
                addresses.len(),
                if addresses.len() == 1 { "" } else { "es" }
            ));
        }
        Ok(Hosts { addresses })
    }

    /// Whether process `i`'s address is a loopback one (`localhost` or a
    /// loopback IP), so that its links cannot leave the machine.
    pub fn is_loopback(&self, i: usize) -> bool {
        let (host, _) = split(&self.addresses[i]).expect("checked when read");
        host.eq_ignore_ascii_case("localhost")
            || host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    }
}

/// The longest line quoted whole in an error, in characters.
const SHOWN_CHARS: usize = 80;

/// `line` quoted, cut after [`SHOWN_CHARS`] characters with its length
/// in bytes said.
fn shown(line: &str) -> String {
    if line.chars().count() <= SHOWN_CHARS {
        return format!("{line:?}");
    }
    let head: String = line.chars().take(SHOWN_CHARS).collect();
    format!("{head:?}… (a line of {} bytes)", line.len())
}

/// `host:port` split at the last colon (an IPv6 host is bracketed).
fn split(address: &str) -> Option<(&str, &str)> {
    address.rsplit_once(':')
}

/// Why `address` is not a `host:port` address, if it is not.
fn check_address(address: &str) -> Result<(), &'static str> {
    let (host, port) = split(address).ok_or("no `:port`")?;
    if host.is_empty() {
        return Err("no host before the colon");
    }
    if host.chars().any(char::is_whitespace) {
        return Err("the host contains a space");
    }
    match port.parse::<u16>() {
        Ok(0) => Err("port 0 is not a fixed port"),
        Ok(_) => Ok(()),
        Err(_) => Err("the port is not a number 1..=65535"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_good_file_and_every_kind_of_bad_line() {
        let text = "# two processes\n127.0.0.1:7000\n\n  localhost:7001 \n";
        let hosts = Hosts::parse("h", text, 1).unwrap();
        assert_eq!(hosts.addresses, ["127.0.0.1:7000", "localhost:7001"]);
        assert!(hosts.is_loopback(0) && hosts.is_loopback(1));
        let remote = Hosts::parse("h", "10.0.0.2:7000\n[::1]:7001\n", 0).unwrap();
        assert!(!remote.is_loopback(0) && remote.is_loopback(1));
        for (text, process, expected) in [
            (
                "127.0.0.1\n",
                0,
                "h:1: \"127.0.0.1\" is not a host:port address: no `:port`",
            ),
            (
                "a:1\nb:0\n",
                0,
                "h:2: \"b:0\" is not a host:port address: port 0",
            ),
            (
                "a:1\n:2\n",
                0,
                "h:2: \":2\" is not a host:port address: no host",
            ),
            (
                "a:1\nb:x\n",
                0,
                "h:2: \"b:x\" is not a host:port address: the port",
            ),
            ("a:1\na:1\n", 0, "h:2: \"a:1\" is named twice"),
            (
                "a:1\nb:2\n",
                2,
                "h: names 2 processes, so there is no process 2",
            ),
            ("", 0, "h: names 0 processes, so there is no process 0"),
        ] {
            let err = Hosts::parse("h", text, process).unwrap_err();
            assert!(err.starts_with(expected), "{text:?}: {err}");
            assert!(!err.contains('\n'), "one line: {err}");
        }
    }

    #[test]
    fn a_long_line_is_cut_and_a_byte_order_mark_is_no_part_of_the_address() {
        let long = format!("a:1\n{}\n", "x".repeat(5 << 20));
        let err = Hosts::parse("h", &long, 0).unwrap_err();
        assert!(err.len() < 200, "{err}");
        assert!(err.starts_with("h:2: \"xxxx"), "{err}");
        assert!(err.contains("… (a line of 5242880 bytes) is not"), "{err}");
        let hosts = Hosts::parse("h", "\u{feff}127.0.0.1:7000\n", 0).unwrap();
        assert_eq!(hosts.addresses, ["127.0.0.1:7000"]);
        assert!(hosts.is_loopback(0));
    }
}
