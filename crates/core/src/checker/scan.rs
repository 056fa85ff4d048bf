//! Byte scanners with position tracking, and the normalising reader behind the `lines` checker.
//! Everything reads through fixed-size buffers: memory does not grow with the input.

use std::collections::VecDeque;
use std::fs::File;
use std::io::Read;

/// Bytes of a token or line kept for messages.
pub const KEEP: usize = 4096;

pub fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c')
}

/// A source of bytes, one at a time.
pub trait ByteSource {
    fn peek(&mut self) -> std::io::Result<Option<u8>>;
    fn bump(&mut self);
}

/// A file read through a 64 KiB buffer, zeroed once (not at every refill: a check of a small
/// output refills as often as it reads).
pub struct FileBytes {
    inner: File,
    buf: Box<[u8]>,
    len: usize,
    pos: usize,
}

impl FileBytes {
    pub fn open(path: &std::path::Path) -> std::io::Result<Self> {
        Ok(FileBytes {
            inner: File::open(path)?,
            buf: vec![0u8; 64 * 1024].into_boxed_slice(),
            len: 0,
            pos: 0,
        })
    }
}

impl ByteSource for FileBytes {
    fn peek(&mut self) -> std::io::Result<Option<u8>> {
        if self.pos >= self.len {
            self.len = self.inner.read(&mut self.buf)?;
            self.pos = 0;
            if self.len == 0 {
                return Ok(None);
            }
        }
        Ok(Some(self.buf[self.pos]))
    }

    fn bump(&mut self) {
        self.pos += 1;
    }
}

/// Tracks the 1-based line and column (in bytes) of the next byte.
pub struct Scanner<S: ByteSource> {
    src: S,
    pub line: u64,
    pub column: u64,
}

impl<S: ByteSource> Scanner<S> {
    pub fn new(src: S) -> Self {
        Scanner {
            src,
            line: 1,
            column: 1,
        }
    }

    pub fn peek(&mut self) -> std::io::Result<Option<u8>> {
        self.src.peek()
    }

    pub fn bump(&mut self) -> std::io::Result<Option<u8>> {
        let b = self.src.peek()?;
        if let Some(b) = b {
            self.src.bump();
            if b == b'\n' {
                self.line += 1;
                self.column = 1;
            } else {
                self.column += 1;
            }
        }
        Ok(b)
    }

    pub fn skip_space(&mut self) -> std::io::Result<()> {
        while let Some(b) = self.peek()? {
            if !is_space(b) {
                break;
            }
            self.bump()?;
        }
        Ok(())
    }

    /// The next byte if it belongs to a token.
    pub fn peek_token_byte(&mut self) -> std::io::Result<Option<u8>> {
        Ok(self.peek()?.filter(|&b| !is_space(b)))
    }
}

/// The start of a token and the first [`KEEP`] bytes of it.
#[derive(Debug, Default, Clone)]
pub struct Token {
    pub line: u64,
    pub column: u64,
    pub prefix: Vec<u8>,
    pub len: u64,
}

impl Token {
    pub fn complete(&self) -> bool {
        self.len as usize == self.prefix.len()
    }
}

/// Reads the next token of both scanners in lockstep, so that tokens of any length compare exactly
/// in constant memory. Returns the two tokens and whether they are byte-equal. Both scanners must
/// be positioned at the start of a token.
pub fn read_token_pair<A: ByteSource, B: ByteSource>(
    a: &mut Scanner<A>,
    b: &mut Scanner<B>,
) -> std::io::Result<(Token, Token, bool)> {
    let mut ta = Token {
        line: a.line,
        column: a.column,
        ..Token::default()
    };
    let mut tb = Token {
        line: b.line,
        column: b.column,
        ..Token::default()
    };
    let mut equal = true;
    loop {
        let (x, y) = (a.peek_token_byte()?, b.peek_token_byte()?);
        if x.is_none() && y.is_none() {
            break;
        }
        if x != y {
            equal = false;
        }
        for (byte, tok) in [(x, &mut ta), (y, &mut tb)] {
            if let Some(byte) = byte {
                if tok.prefix.len() < KEEP {
                    tok.prefix.push(byte);
                }
                tok.len += 1;
            }
        }
        if x.is_some() {
            a.bump()?;
        }
        if y.is_some() {
            b.bump()?;
        }
    }
    Ok((ta, tb, equal))
}

/// Reads one token alone (for "extra output" / "missing output" messages).
pub fn read_token<A: ByteSource>(a: &mut Scanner<A>) -> std::io::Result<Token> {
    let mut t = Token {
        line: a.line,
        column: a.column,
        ..Token::default()
    };
    while let Some(x) = a.peek_token_byte()? {
        if t.prefix.len() < KEEP {
            t.prefix.push(x);
        }
        t.len += 1;
        a.bump()?;
    }
    Ok(t)
}

/// Presents a file with trailing spaces/tabs/CR of every line and trailing blank lines removed,
/// and a final newline dropped: the `lines` checker compares these streams byte for byte.
pub struct Normalised<S: ByteSource> {
    src: S,
    /// Spaces/tabs/CRs seen but not yet known to be trailing.
    pending_space: VecDeque<u8>,
    /// Newlines seen but not yet known to be trailing.
    pending_newlines: u64,
    /// Ready to hand out: first this many newlines, then `ready`.
    ready_newlines: u64,
    ready: VecDeque<u8>,
}

const PENDING_CAP: usize = 64 * 1024;

impl<S: ByteSource> Normalised<S> {
    pub fn new(src: S) -> Self {
        Normalised {
            src,
            pending_space: VecDeque::new(),
            pending_newlines: 0,
            ready_newlines: 0,
            ready: VecDeque::new(),
        }
    }

    /// Reads until something is ready (or the end). Only called when nothing is ready.
    fn fill(&mut self) -> std::io::Result<()> {
        loop {
            let Some(b) = self.src.peek()? else {
                // Trailing spaces and blank lines at the end are dropped.
                self.pending_space.clear();
                self.pending_newlines = 0;
                return Ok(());
            };
            self.src.bump();
            match b {
                b' ' | b'\t' | b'\r' => {
                    self.pending_space.push_back(b);
                    if self.pending_space.len() >= PENDING_CAP {
                        // An absurd run: stop treating it as possibly trailing.
                        self.release();
                        return Ok(());
                    }
                }
                b'\n' => {
                    self.pending_space.clear();
                    self.pending_newlines += 1;
                }
                _ => {
                    self.release();
                    self.ready.push_back(b);
                    return Ok(());
                }
            }
        }
    }

    fn release(&mut self) {
        self.ready_newlines = std::mem::take(&mut self.pending_newlines);
        self.ready.extend(self.pending_space.drain(..));
    }
}

impl<S: ByteSource> ByteSource for Normalised<S> {
    fn peek(&mut self) -> std::io::Result<Option<u8>> {
        if self.ready_newlines == 0 && self.ready.is_empty() {
            self.fill()?;
        }
        if self.ready_newlines > 0 {
            return Ok(Some(b'\n'));
        }
        Ok(self.ready.front().copied())
    }

    fn bump(&mut self) {
        if self.ready_newlines > 0 {
            self.ready_newlines -= 1;
        } else {
            self.ready.pop_front();
        }
    }
}
