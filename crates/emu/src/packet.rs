//! The few IPv4 / TCP / UDP header fields the emulator reads from a packet.

/// A flow's identity: protocol, addresses and ports (ports 0 for other protocols).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlowKey {
    /// IP protocol number.
    pub proto: u8,
    /// Source address.
    pub src: [u8; 4],
    /// Destination address.
    pub dst: [u8; 4],
    /// Source port.
    pub sport: u16,
    /// Destination port.
    pub dport: u16,
}

/// What the emulator needs to know about an IPv4 packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv4Info {
    /// The flow.
    pub key: FlowKey,
    /// Transport payload bytes (TCP/UDP data after the headers; 0 for others).
    pub payload: u32,
    /// DiffServ code point.
    pub dscp: u8,
}

/// Parses an IPv4 packet; `None` for anything else (IPv6, truncated).
#[inline]
pub fn parse_ipv4(p: &[u8]) -> Option<Ipv4Info> {
    if p.len() < 20 || p[0] >> 4 != 4 {
        return None;
    }
    let ihl = ((p[0] & 0x0f) as usize) * 4;
    let total = u16::from_be_bytes([p[2], p[3]]) as usize;
    if ihl < 20 || p.len() < ihl || total < ihl {
        return None;
    }
    let proto = p[9];
    let src = [p[12], p[13], p[14], p[15]];
    let dst = [p[16], p[17], p[18], p[19]];
    let l4 = &p[ihl..total.min(p.len())];
    let (sport, dport, payload) = match proto {
        6 if l4.len() >= 20 => {
            let doff = ((l4[12] >> 4) as usize) * 4;
            (u16::from_be_bytes([l4[0], l4[1]]), u16::from_be_bytes([l4[2], l4[3]]), l4.len().saturating_sub(doff) as u32)
        }
        17 if l4.len() >= 8 => (u16::from_be_bytes([l4[0], l4[1]]), u16::from_be_bytes([l4[2], l4[3]]), (l4.len() - 8) as u32),
        _ => (0, 0, 0),
    };
    Some(Ipv4Info { key: FlowKey { proto, src, dst, sport, dport }, payload, dscp: p[1] >> 2 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_tcp_header_fields() {
        let mut p = vec![0u8; 20 + 32 + 100];
        p[0] = 0x45;
        p[1] = 8 << 2;
        let len = p.len() as u16;
        p[2..4].copy_from_slice(&len.to_be_bytes());
        p[9] = 6;
        p[12..16].copy_from_slice(&[10, 200, 0, 1]);
        p[16..20].copy_from_slice(&[10, 201, 0, 3]);
        p[20..22].copy_from_slice(&40000u16.to_be_bytes());
        p[22..24].copy_from_slice(&15001u16.to_be_bytes());
        p[32] = 8 << 4; // 32-byte TCP header (timestamps)
        let i = parse_ipv4(&p).unwrap();
        assert_eq!((i.key.sport, i.key.dport, i.payload, i.dscp), (40000, 15001, 100, 8));
        assert_eq!(i.key.dst, [10, 201, 0, 3]);
        assert!(parse_ipv4(&[0x60; 40]).is_none());
        assert!(parse_ipv4(&p[..10]).is_none());
    }
}
