//! `impulse view --serve`: the page on 127.0.0.1, one thread per client, every request bounded.
//!
//! A single-threaded loop with a per-read timeout was held by one client sending a byte every
//! few seconds, read request lines of any length, and answered any `Host` (a page on another
//! site could reach it through DNS rebinding). Now each connection has its own thread (at most
//! [`MAX_CLIENTS`] at once), the request head must arrive whole within [`REQUEST_DEADLINE`] and
//! [`MAX_HEAD_BYTES`], and the `Host` header must name this server on the loopback.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Longest request head (request line and headers) read.
const MAX_HEAD_BYTES: usize = 16 * 1024;
/// Time a client has to send its whole request head.
const REQUEST_DEADLINE: Duration = Duration::from_secs(10);
/// Connections served at once; more are answered 503 at once.
const MAX_CLIENTS: usize = 32;

/// Serves `html` at `/` on 127.0.0.1:`port` (0: any free port) until the process is stopped.
pub fn serve(html: &str, port: u16) -> Result<(), String> {
    let listener = TcpListener::bind(("127.0.0.1", port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let address = listener
        .local_addr()
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    println!("serving http://{address}/ (press Ctrl-C to stop)");
    let _ = std::io::stdout().flush();
    let html: Arc<str> = Arc::from(html);
    let clients = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        // One bad connection must not stop the server.
        let Ok(mut stream) = stream else { continue };
        if clients.fetch_add(1, Ordering::SeqCst) >= MAX_CLIENTS {
            clients.fetch_sub(1, Ordering::SeqCst);
            let _ = reply(&mut stream, "503 Service Unavailable", "busy\n", false);
            continue;
        }
        let (html, clients) = (html.clone(), clients.clone());
        std::thread::spawn(move || {
            if let Err(e) = respond(stream, &html, address.port()) {
                eprintln!("warning: a request failed: {e}");
            }
            clients.fetch_sub(1, Ordering::SeqCst);
        });
    }
    Ok(())
}

fn respond(mut stream: TcpStream, html: &str, port: u16) -> std::io::Result<()> {
    stream.set_write_timeout(Some(REQUEST_DEADLINE))?;
    let head = match read_head(&mut stream, Instant::now() + REQUEST_DEADLINE) {
        Ok(head) => head,
        Err(Head::TooLong) => {
            let status = "431 Request Header Fields Too Large";
            reply(&mut stream, status, "too long\n", false)?;
            return drain(&mut stream);
        }
        Err(Head::TooSlow) => {
            reply(&mut stream, "408 Request Timeout", "too slow\n", false)?;
            return drain(&mut stream);
        }
        Err(Head::Io(e)) => return Err(e),
    };
    let (status, body, head_only) = answer(&head, html, port);
    reply(&mut stream, status, body, head_only)
}

/// Why a request head could not be read.
enum Head {
    TooLong,
    TooSlow,
    Io(std::io::Error),
}

/// Reads up to the blank line ending the head, within `deadline` and [`MAX_HEAD_BYTES`].
fn read_head(stream: &mut TcpStream, deadline: Instant) -> Result<String, Head> {
    let mut head = Vec::new();
    let mut chunk = [0u8; 1024];
    while !head.ends_with(b"\r\n\r\n") && !head.ends_with(b"\n\n") {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Head::TooSlow);
        }
        stream.set_read_timeout(Some(left)).map_err(Head::Io)?;
        let n = match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Err(Head::TooSlow);
            }
            Err(e) => return Err(Head::Io(e)),
        };
        head.extend_from_slice(&chunk[..n]);
        if head.len() > MAX_HEAD_BYTES {
            return Err(Head::TooLong);
        }
    }
    Ok(String::from_utf8_lossy(&head).into_owned())
}

/// The status, body and whether to leave the body out (HEAD) for a request head.
fn answer<'a>(head: &str, html: &'a str, port: u16) -> (&'static str, &'a str, bool) {
    let mut lines = head.lines();
    let request = lines.next().unwrap_or("");
    let mut words = request.split_whitespace();
    let (method, path) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    let host = lines
        .filter_map(|l| l.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("host"))
        .map(|(_, value)| value.trim());
    let head_only = method == "HEAD";
    let Some(host) = host else {
        return ("400 Bad Request", "a Host header is needed\n", head_only);
    };
    if !is_loopback_host(host, port) {
        // DNS rebinding: a page from elsewhere reaching 127.0.0.1 under its own name.
        return ("421 Misdirected Request", "wrong host\n", head_only);
    }
    match (method, path) {
        ("GET" | "HEAD", "/" | "/index.html" | "/view.html") => ("200 OK", html, head_only),
        ("GET" | "HEAD", _) => ("404 Not Found", "not found\n", head_only),
        _ => ("405 Method Not Allowed", "only GET\n", false),
    }
}

/// Whether `host` (a `Host` header's value) names this server: `127.0.0.1`, `localhost` or `[::1]`,
/// with this port or none.
fn is_loopback_host(host: &str, port: u16) -> bool {
    let name = match host.rsplit_once(':') {
        Some((name, p)) if !name.is_empty() && !p.contains(']') => {
            if p != port.to_string() {
                return false;
            }
            name
        }
        _ => host,
    };
    matches!(
        name.to_ascii_lowercase().as_str(),
        "127.0.0.1" | "localhost" | "[::1]"
    )
}

/// After an early answer: stops writing and reads (briefly, boundedly) what the client still
/// sends, so closing with unread data does not reset the connection before it reads the answer.
fn drain(stream: &mut TcpStream) -> std::io::Result<()> {
    stream.shutdown(std::net::Shutdown::Write)?;
    stream.set_read_timeout(Some(Duration::from_millis(200)))?;
    let _ = std::io::copy(&mut stream.take(1 << 20), &mut std::io::sink());
    Ok(())
}

fn reply(stream: &mut TcpStream, status: &str, body: &str, head_only: bool) -> std::io::Result<()> {
    let kind = if status.starts_with("200") {
        "text/html; charset=utf-8"
    } else {
        "text/plain; charset=utf-8"
    };
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    if !head_only {
        stream.write_all(body.as_bytes())?;
    }
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_foreign_host_is_refused_against_dns_rebinding() {
        let page = "<html>";
        let ask = |host: &str| {
            answer(
                &format!("GET / HTTP/1.1\r\nHost: {host}\r\n\r\n"),
                page,
                8000,
            )
            .0
        };
        for host in [
            "127.0.0.1:8000",
            "localhost:8000",
            "LOCALHOST",
            "[::1]:8000",
            "127.0.0.1",
        ] {
            assert_eq!(ask(host), "200 OK", "{host}");
        }
        for host in [
            "evil.example:8000",
            "evil.example",
            "127.0.0.1:8001",
            "127.0.0.1.evil:8000",
            "",
        ] {
            assert_eq!(ask(host), "421 Misdirected Request", "{host}");
        }
        assert_eq!(
            answer("GET / HTTP/1.1\r\n\r\n", page, 8000).0,
            "400 Bad Request"
        );
    }
}
