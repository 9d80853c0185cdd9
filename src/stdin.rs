//! Reading stdin whole. Most of a large run's start is spent here: copying the file from
//! the page cache into memory the process has not touched before (a page fault per 4 KiB),
//! before any document can be split or read. When stdin is a regular file (`< file`) that
//! copy is shared among the run's threads, each reading its own part of the file
//! (docs/performance.md, "`--jobs` scaling").

use std::io::{Read, Seek, SeekFrom};
use std::os::fd::AsFd;
use std::os::unix::fs::FileExt;

/// Below this, one thread reads: a thread costs more than the copy it would share.
const PARALLEL_READ_MIN: usize = 4 << 20;

/// Reads all of stdin, with up to `jobs` threads when it is a regular file.
pub fn read_all(jobs: usize) -> std::io::Result<Vec<u8>> {
    let stdin = std::io::stdin();
    let file = stdin
        .as_fd()
        .try_clone_to_owned()
        .map(std::fs::File::from)
        .ok()
        .filter(|file| file.metadata().is_ok_and(|meta| meta.is_file()));
    let Some(mut file) = file else {
        let mut bytes = Vec::new();
        stdin.lock().read_to_end(&mut bytes)?;
        return Ok(bytes);
    };
    // Where the shell left stdin (`{ head -1; kadmit …; } < file` reads on from there).
    let start = file.stream_position()?;
    let size = usize::try_from(file.metadata()?.len().saturating_sub(start)).unwrap_or(0);
    let mut bytes = if jobs >= 2 && size >= PARALLEL_READ_MIN {
        read_in_parts(&file, start, size, jobs)?
    } else {
        // Sized once: grown by doubling, a large input would be held twice while it is
        // copied to grow.
        Vec::with_capacity(size)
    };
    // The rest (all of it when read by one thread; what was appended meanwhile), read on
    // from where the parts end, which also leaves stdin's offset at its end.
    file.seek(SeekFrom::Start(start + bytes.len() as u64))?;
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// `size` bytes of `file` from `start`, in `jobs` parts read at once; shorter when the file
/// shrank meanwhile (what the parts read is then read again from where it ends).
fn read_in_parts(
    file: &std::fs::File,
    start: u64,
    size: usize,
    jobs: usize,
) -> std::io::Result<Vec<u8>> {
    let mut bytes = vec![0u8; size];
    let part = size.div_ceil(jobs);
    let read: Vec<std::io::Result<usize>> = std::thread::scope(|scope| {
        let mut chunks = bytes.chunks_mut(part);
        let first = chunks.next().expect("size is not 0");
        let readers: Vec<_> = chunks
            .enumerate()
            .map(|(index, chunk)| {
                let offset = start + ((index + 1) * part) as u64;
                scope.spawn(move || read_fully_at(file, chunk, offset))
            })
            .collect();
        // This thread reads the first part: were it to wait, the scheduler may leave a
        // new thread on a busy core for milliseconds.
        let mut read = vec![read_fully_at(file, first, start)];
        read.extend(
            readers
                .into_iter()
                .map(|reader| reader.join().expect("a read does not panic")),
        );
        read
    });
    // The bytes up to the first part that came short are the file's.
    let mut whole = 0;
    for (index, got) in read.into_iter().enumerate() {
        let got = got?;
        whole = index * part + got;
        if got < part.min(size - index * part) {
            break;
        }
    }
    bytes.truncate(whole);
    Ok(bytes)
}

/// Fills `buf` from `offset` on, or as much of it as the file has.
fn read_fully_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read_at(&mut buf[filled..], offset + filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}
