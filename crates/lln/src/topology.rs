//! The neighbourhood graph and the static routing tree.
//!
//! Node 0 is the border router, nodes 1..=N the sensor nodes. Two nodes are neighbours
//! when they hear each other (closer than the radio range, or an explicit link): they can
//! exchange frames, and one's transmission collides with any other frame the other is
//! receiving. The routing tree is static: each node's parent is given, or chosen RPL-like
//! (objective: fewest hops to the border router; ties broken by distance, then id).

use crate::config::LlnConfig;
use crate::config::LlnError;

/// The network's graph and routing tree, built once before a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Topology {
    /// Neighbours of each node (sorted ids), node 0 = border router.
    pub neighbours: Vec<Vec<u32>>,
    /// Parent of each node towards the border router (`parent[0] == 0`).
    pub parent: Vec<u32>,
    /// Hop count of each node to the border router (`hops[0] == 0`).
    pub hops: Vec<u32>,
    /// `down[cur · n + dest]`: the child of `cur` on the path to `dest` (or `u32::MAX` when
    /// `dest` is not below `cur`).
    down: Vec<u32>,
    /// Number of nodes including the border router.
    pub n: usize,
}

impl Topology {
    /// Builds the graph and tree of `cfg`, checking that every node reaches the border
    /// router through its parents, that parents are neighbours, and that positions are
    /// given where needed.
    pub fn build(cfg: &LlnConfig) -> Result<Self, LlnError> {
        let n = cfg.nodes.len() + 1;
        let t = &cfg.topology;
        let mut adj = vec![vec![false; n]; n];
        let mut pos: Vec<Option<[f64; 2]>> = Vec::with_capacity(n);
        pos.push(t.border_router_position);
        pos.extend(cfg.nodes.iter().map(|x| x.position));
        for (i, p) in pos.iter().enumerate() {
            if let Some([x, y]) = p {
                if !(x.is_finite() && y.is_finite()) {
                    let key = if i == 0 { "lln.topology.border_router_position".to_string() } else { format!("lln.nodes[{}].position", i - 1) };
                    return Err(LlnError::new(key, format!("[{x}, {y}]"), "finite coordinates in m"));
                }
            }
        }
        match (t.range_m, &t.links) {
            (Some(_), Some(_)) => {
                return Err(LlnError::new("lln.topology.links", "both `range_m` and `links`", "exactly one of `range_m` and `links`"))
            }
            (None, None) => {
                return Err(LlnError::new("lln.topology.range_m", "neither `range_m` nor `links`", "exactly one of `range_m` and `links`"))
            }
            (Some(range), None) => {
                if !(range > 0.0 && range.is_finite()) {
                    return Err(LlnError::new("lln.topology.range_m", range, "a radio range in m > 0"));
                }
                if pos[0].is_none() {
                    return Err(LlnError::new("lln.topology.border_router_position", "nothing", "[x, y] in m (needed with range_m)"));
                }
                if let Some(i) = (1..n).find(|&i| pos[i].is_none()) {
                    return Err(LlnError::new(format!("lln.nodes[{}].position", i - 1), "nothing", "[x, y] in m (needed with topology.range_m)"));
                }
                for i in 0..n {
                    for j in 0..i {
                        if dist(pos[i].unwrap(), pos[j].unwrap()) < range {
                            adj[i][j] = true;
                            adj[j][i] = true;
                        }
                    }
                }
            }
            (None, Some(links)) => {
                for (k, &[a, b]) in links.iter().enumerate() {
                    if a as usize >= n || b as usize >= n || a == b {
                        return Err(LlnError::new(
                            format!("lln.topology.links[{k}]"),
                            format!("[{a}, {b}]"),
                            format!("two different node ids in 0..={} (0 = border router)", n - 1),
                        ));
                    }
                    adj[a as usize][b as usize] = true;
                    adj[b as usize][a as usize] = true;
                }
            }
        }
        let neighbours: Vec<Vec<u32>> = (0..n).map(|i| (0..n).filter(|&j| adj[i][j]).map(|j| j as u32).collect()).collect();

        // Hop distance of every node to the border router in the graph (BFS).
        let mut graph_hops = vec![u32::MAX; n];
        graph_hops[0] = 0;
        let mut frontier = vec![0usize];
        while !frontier.is_empty() {
            let mut next = Vec::new();
            for &u in &frontier {
                for &v in &neighbours[u] {
                    if graph_hops[v as usize] == u32::MAX {
                        graph_hops[v as usize] = graph_hops[u] + 1;
                        next.push(v as usize);
                    }
                }
            }
            frontier = next;
        }

        let mut parent = vec![0u32; n];
        for i in 1..n {
            let key = format!("lln.nodes[{}].parent", i - 1);
            parent[i] = match cfg.nodes[i - 1].parent {
                Some(p) => {
                    if p as usize >= n || p as usize == i {
                        return Err(LlnError::new(key, p, format!("a node id in 0..={} other than the node itself ({i})", n - 1)));
                    }
                    if !adj[i][p as usize] {
                        return Err(LlnError::new(key, p, format!("a neighbour of node {i} (it hears {:?})", neighbours[i])));
                    }
                    p
                }
                None => {
                    // RPL-like: the neighbour of lowest rank (hops), then the closest, then the lowest id.
                    let best = neighbours[i].iter().copied().filter(|&j| graph_hops[j as usize] != u32::MAX).min_by(|&a, &b| {
                        let da = pos[i].zip(pos[a as usize]).map(|(x, y)| dist(x, y)).unwrap_or(0.0);
                        let db = pos[i].zip(pos[b as usize]).map(|(x, y)| dist(x, y)).unwrap_or(0.0);
                        graph_hops[a as usize].cmp(&graph_hops[b as usize]).then(da.total_cmp(&db)).then(a.cmp(&b))
                    });
                    match best {
                        Some(p) => p,
                        None => return Err(LlnError::new(key, "no route", format!("node {i} to hear a node connected to the border router"))),
                    }
                }
            };
        }
        // Every node must reach the border router through its parents (no cycles).
        let mut hops = vec![0u32; n];
        for i in 1..n {
            let mut cur = i;
            let mut h = 0u32;
            while cur != 0 {
                cur = parent[cur] as usize;
                h += 1;
                if h as usize > n {
                    return Err(LlnError::new(format!("lln.nodes[{}].parent", i - 1), parent[i], "parents that lead to the border router (this one is part of a cycle)"));
                }
            }
            hops[i] = h;
        }
        let mut down = vec![u32::MAX; n * n];
        for dest in 1..n {
            let mut child = dest;
            let mut cur = parent[dest] as usize;
            loop {
                down[cur * n + dest] = child as u32;
                if cur == 0 {
                    break;
                }
                child = cur;
                cur = parent[cur] as usize;
            }
        }
        Ok(Self { neighbours, parent, hops, down, n })
    }

    /// The next hop from `cur` towards `dest` down the tree, if `dest` is below `cur`.
    #[inline]
    pub fn next_down(&self, cur: u32, dest: u32) -> Option<u32> {
        let c = self.down[cur as usize * self.n + dest as usize];
        (c != u32::MAX).then_some(c)
    }

    /// Number of descendants of every node (the border router's is `n − 1`).
    pub fn descendants(&self) -> Vec<u32> {
        let mut d = vec![0u32; self.n];
        for i in 1..self.n {
            let mut cur = self.parent[i] as usize;
            loop {
                d[cur] += 1;
                if cur == 0 {
                    break;
                }
                cur = self.parent[cur] as usize;
            }
        }
        d
    }
}

fn dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}
