//! What `impulse run` and `impulse check` tell a person: what the scene holds, in the same words
//! for both, and a short account of a run with its units (issue 41, item 9). The full counters
//! stay in `summary.json` (and on the terminal with `run --verbose`).

use std::fmt;

use impulse::run::summary::Summary;
use impulse::scene::Units;
use impulse::{MotionType, World};

/// How many bodies of each kind, multibodies and links a world holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Census {
    pub dynamic: usize,
    pub fixed: usize,
    pub kinematic: usize,
    pub multibodies: usize,
    pub links: usize,
}

impl Census {
    pub fn of(world: &World) -> Self {
        let mut census = Self::default();
        for body in world.bodies() {
            match body.motion() {
                MotionType::Dynamic => census.dynamic += 1,
                MotionType::Fixed => census.fixed += 1,
                MotionType::Kinematic(_) => census.kinematic += 1,
            }
        }
        census.multibodies = world.multibodies().len();
        census.links = world
            .multibodies()
            .iter()
            .map(|m| m.tree().links().len())
            .sum();
        census
    }

    fn bodies(&self) -> usize {
        self.dynamic + self.fixed + self.kinematic
    }
}

/// `n thing` or `n things`.
fn count(n: usize, thing: &str) -> String {
    plural(n, thing, &format!("{thing}s"))
}

/// `1 one` or `n many`.
fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

impl fmt::Display for Census {
    /// "10 bodies (8 dynamic, 2 fixed) and 1 multibody of 3 links".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kinds: Vec<String> = [
            (self.dynamic, "dynamic"),
            (self.fixed, "fixed"),
            (self.kinematic, "kinematic"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, kind)| format!("{n} {kind}"))
        .collect();
        if self.bodies() > 0 || self.multibodies == 0 {
            write!(f, "{}", plural(self.bodies(), "body", "bodies"))?;
            if !kinds.is_empty() {
                write!(f, " ({})", kinds.join(", "))?;
            }
            if self.multibodies > 0 {
                write!(f, " and ")?;
            }
        }
        if self.multibodies > 0 {
            write!(
                f,
                "{} of {}",
                plural(self.multibodies, "multibody", "multibodies"),
                count(self.links, "link")
            )?;
        }
        Ok(())
    }
}

/// What drives a world, putting energy in or taking it out other than by collisions: kinematic
/// bodies, applied forces and torques, controllers. Empty for a closed world.
pub fn drivers(world: &World) -> Vec<String> {
    let mut out = Vec::new();
    let kinematic: Vec<&str> = world
        .bodies()
        .iter()
        .filter(|b| matches!(b.motion(), MotionType::Kinematic(_)))
        .map(|b| b.name())
        .collect();
    if !kinematic.is_empty() {
        out.push(format!("kinematic {}", names(&kinematic)));
    }
    let forced: Vec<&str> = world
        .bodies()
        .iter()
        .filter(|b| b.is_dynamic() && (b.force().norm() > 0.0 || b.torque().norm() > 0.0))
        .map(|b| b.name())
        .collect();
    if !forced.is_empty() {
        out.push(format!("forces on {}", names(&forced)));
    }
    let driven: Vec<&str> = world
        .multibodies()
        .iter()
        .filter(|m| m.is_driven())
        .map(|m| m.name())
        .collect();
    if !driven.is_empty() {
        out.push(format!("controllers or forces of {}", names(&driven)));
    }
    out
}

/// `a`, `a` and `b`, or `a`, `b` and 3 others, each in backticks.
fn names(list: &[&str]) -> String {
    let quoted: Vec<String> = list.iter().map(|n| format!("`{n}`")).collect();
    match quoted.len() {
        0 => String::new(),
        1 => quoted[0].clone(),
        2 | 3 => format!(
            "{} and {}",
            quoted[..quoted.len() - 1].join(", "),
            quoted[quoted.len() - 1]
        ),
        n => format!("{} and {} others", quoted[..2].join(", "), n - 2),
    }
}

/// A quantity with its unit, or "(scene units)" when the scene's system is unknown.
fn quantity(x: f64, unit: Option<&str>) -> String {
    match unit {
        Some(unit) => format!("{} {unit}", significant(x)),
        None => significant(x),
    }
}

/// The lines `impulse run` prints after a run (without `--verbose`'s counters).
pub struct RunReport<'a> {
    pub summary: &'a Summary,
    pub scene_file: &'a str,
    pub census: Census,
    pub units: Option<Units>,
    pub drivers: Vec<String>,
    /// The files written, as shown (the directory first).
    pub files: Vec<String>,
    pub out_dir: &'a str,
}

impl fmt::Display for RunReport<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.summary;
        let energy_unit = self.units.map(Units::energy);
        let length_unit = self.units.map(Units::length);
        writeln!(f, "{} ({})", s.scene, self.scene_file)?;
        let speed = if s.wall_time_s > 0.0 {
            format!(
                ", {} × real time",
                significant_short(s.sim_time / s.wall_time_s)
            )
        } else {
            String::new()
        };
        let status = if s.status == "completed" {
            "simulated"
        } else {
            "stopped after"
        };
        writeln!(
            f,
            "  {status} {} s of {} s in {:.3} s{speed}",
            s.sim_time, s.duration, s.wall_time_s
        )?;
        writeln!(f, "  holds     {}", self.census)?;
        let collisions = s.counters.get("collisions").copied().unwrap_or(0);
        let micro = s.counters.get("microcollisions").copied().unwrap_or(0);
        let depth = if s.max_penetration > 0.0 {
            format!(
                "; deepest overlap {}",
                quantity(s.max_penetration, length_unit)
            )
        } else {
            String::new()
        };
        writeln!(
            f,
            "  contact   {}, {}{depth}",
            count(collisions as usize, "collision"),
            count(micro as usize, "microcollision")
        )?;
        let e = &s.energy;
        let change = e.r#final - e.initial;
        let unit_note = if energy_unit.is_none() {
            " (in the scene's units; `[world] units` names them)"
        } else {
            ""
        };
        // No percentage: the potential energy's zero is arbitrary (z = 0), so a change
        // relative to the total means nothing (the see-saw's was −199 %).
        let how = if !self.drivers.is_empty() {
            format!(
                "\n            not conserved: driven by {}",
                self.drivers.join("; ")
            )
        } else if change.abs() <= 1e-9 * (e.initial.abs() + e.r#final.abs()) {
            " (conserved)".to_string()
        } else if change < 0.0 {
            " (dissipated: collisions, friction, dampers)".to_string()
        } else {
            " (gained: microcollisions may add a little, see `energy_bound`)".to_string()
        };
        writeln!(
            f,
            "  energy    {} → {}, change {}{unit_note}{how}",
            quantity(e.initial, energy_unit),
            quantity(e.r#final, energy_unit),
            signed(change, energy_unit),
        )?;
        writeln!(f, "  wrote     {}: {}", self.out_dir, self.files.join(", "))?;
        write!(
            f,
            "  look      impulse view {0} · impulse render {0} · impulse plot {0}",
            self.out_dir
        )
    }
}

/// The counters, one per line, for `--verbose`.
pub fn counters(summary: &Summary) -> String {
    let width = summary.counters.keys().map(String::len).max().unwrap_or(0);
    let mut out = String::from("  counters (also in summary.json):\n");
    for (name, value) in &summary.counters {
        out.push_str(&format!("    {name:<width$}  {value}\n"));
    }
    out
}

/// `x` to seven significant digits, in plain notation where that is short and in scientific
/// notation otherwise (what a person reads in a summary; the exact values are in summary.json).
pub fn significant(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let exponent = x.abs().log10().floor();
    if (-4.0..9.0).contains(&exponent) {
        let decimals = (6.0 - exponent).max(0.0) as usize;
        format!("{x:.decimals$}")
    } else {
        format!("{x:.6e}")
    }
}

/// A change, signed, with its unit.
fn signed(x: f64, unit: Option<&str>) -> String {
    let digits = quantity(x, unit);
    if x > 0.0 {
        format!("+{digits}")
    } else {
        digits
    }
}

/// `x` to three significant digits (a ratio).
fn significant_short(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let exponent = x.abs().log10().floor();
    if (-3.0..6.0).contains(&exponent) {
        let decimals = (2.0 - exponent).max(0.0) as usize;
        format!("{x:.decimals$}")
    } else {
        format!("{x:.2e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_print_seven_significant_digits() {
        assert_eq!(significant(165505.38749999998), "165505.4");
        assert_eq!(significant(-105100.16368), "-105100.2");
        assert_eq!(significant(0.0012345678), "0.001234568");
        assert_eq!(significant(2.5), "2.500000");
        assert_eq!(significant(6.02e23), "6.020000e23");
        assert_eq!(significant(-3.3e-7), "-3.300000e-7");
        assert_eq!(significant(0.0), "0");
        assert_eq!(significant(f64::NAN), "NaN");
        assert_eq!(significant_short(212.345), "212");
        assert_eq!(significant_short(0.031234), "0.0312");
        assert_eq!(signed(1.5, Some("J")), "+1.500000 J");
        assert_eq!(signed(-2.0, None), "-2.000000");
    }

    #[test]
    fn a_census_reads_as_a_sentence() {
        let census = Census {
            dynamic: 8,
            fixed: 2,
            kinematic: 0,
            multibodies: 1,
            links: 3,
        };
        assert_eq!(
            census.to_string(),
            "10 bodies (8 dynamic, 2 fixed) and 1 multibody of 3 links"
        );
        let one = Census {
            dynamic: 1,
            ..Census::default()
        };
        assert_eq!(one.to_string(), "1 body (1 dynamic)");
        let links_only = Census {
            multibodies: 2,
            links: 1,
            ..Census::default()
        };
        assert_eq!(links_only.to_string(), "2 multibodies of 1 link");
        assert_eq!(Census::default().to_string(), "0 bodies");
    }
}
