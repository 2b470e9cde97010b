//! A minimal pcap writer (libpcap format, link type 101 = raw IP, microsecond stamps), so
//! captures open in Wireshark / tcpdump without another dependency.

use std::io::{BufWriter, Write};

/// A pcap file being written.
#[derive(Debug)]
pub struct PcapWriter<W: Write> {
    out: BufWriter<W>,
}

impl<W: Write> PcapWriter<W> {
    /// Writes the global header to `w`.
    pub fn new(w: W) -> std::io::Result<Self> {
        let mut out = BufWriter::with_capacity(1 << 20, w);
        out.write_all(&0xa1b2_c3d4u32.to_le_bytes())?;
        out.write_all(&2u16.to_le_bytes())?;
        out.write_all(&4u16.to_le_bytes())?;
        out.write_all(&0i32.to_le_bytes())?;
        out.write_all(&0u32.to_le_bytes())?;
        out.write_all(&65_535u32.to_le_bytes())?;
        out.write_all(&101u32.to_le_bytes())?;
        Ok(Self { out })
    }

    /// Appends one packet stamped `t_ns` nanoseconds after the epoch of the capture.
    pub fn packet(&mut self, t_ns: u64, pkt: &[u8]) -> std::io::Result<()> {
        let (s, us) = ((t_ns / 1_000_000_000) as u32, ((t_ns % 1_000_000_000) / 1000) as u32);
        self.out.write_all(&s.to_le_bytes())?;
        self.out.write_all(&us.to_le_bytes())?;
        self.out.write_all(&(pkt.len() as u32).to_le_bytes())?;
        self.out.write_all(&(pkt.len() as u32).to_le_bytes())?;
        self.out.write_all(pkt)
    }

    /// Flushes buffered packets.
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_header_and_records() {
        let mut buf = Vec::new();
        {
            let mut w = PcapWriter::new(&mut buf).unwrap();
            w.packet(1_500_002_000, &[0x45, 0, 0, 20]).unwrap();
            w.flush().unwrap();
        }
        assert_eq!(buf.len(), 24 + 16 + 4);
        assert_eq!(&buf[20..24], &101u32.to_le_bytes());
        assert_eq!(&buf[24..28], &1u32.to_le_bytes());
        assert_eq!(&buf[28..32], &500_002u32.to_le_bytes());
    }
}
