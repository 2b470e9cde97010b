//! # cellshare-transport
//!
//! Transport endpoints as sans-I/O state machines (in the style of quinn-proto): the
//! simulator (or a test) feeds them segments, ACKs and the current time, and asks them what
//! to send and when they next want to be woken up. They never read a clock or touch a
//! socket, so the same code is driven by the discrete-event simulator and by unit tests with
//! hand-built ACK streams.
//!
//! - [`wire`]: what travels: [`wire::Segment`] (data) and [`wire::Ack`];
//! - [`tcp`]: TCP sender and receiver (SACK loss recovery with RACK-TLP, F-RTO, D-SACK and
//!   undo as Linux, NewReno without SACK, Linux's or RFC 6298's RTO, timestamps, delayed
//!   ACKs, receive-window policies);
//! - [`cc`]: congestion controllers behind the [`cc::CongestionControl`] trait, one file each;
//! - [`udp`]: paced UDP-like sources (constant bit rate) and their sink;
//! - [`datagram`]: transports of their own over datagrams (Sprout, Verus, PCC-Vivace),
//!   each a sender/receiver pair behind [`datagram::DatagramSender`] and
//!   [`datagram::DatagramReceiver`].

#![warn(missing_docs)]

pub mod cc;
pub mod datagram;
pub mod tcp;
pub mod udp;
pub mod wire;

pub use cellshare_core::Nanos;
