//! The system of units a scene is written in, for people reading its results.
//!
//! The engine never converts (any consistent system works); a scene may say which one it uses
//! with `[world] units = "SI"` or `"cgs"`, and otherwise its gravity tells the two usual ones
//! apart: 9.81 length/time² is SI, 981 is the thesis's cm-g-s.

use crate::math::Vec3;

/// A system of units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Units {
    /// Metre, kilogram, second.
    Si,
    /// Centimetre, gram, second (the thesis's).
    Cgs,
}

impl Units {
    /// The system whose standard gravity `gravity` is (within 2 %), if either.
    pub fn from_gravity(gravity: &Vec3) -> Option<Self> {
        let g = gravity.norm();
        if (g - 9.81).abs() < 0.2 {
            Some(Self::Si)
        } else if (g - 981.0).abs() < 20.0 {
            Some(Self::Cgs)
        } else {
            None
        }
    }

    /// The unit of length.
    pub fn length(self) -> &'static str {
        match self {
            Self::Si => "m",
            Self::Cgs => "cm",
        }
    }

    /// The unit of energy.
    pub fn energy(self) -> &'static str {
        match self {
            Self::Si => "J",
            Self::Cgs => "erg",
        }
    }

    /// The name used in scene files.
    pub fn name(self) -> &'static str {
        match self {
            Self::Si => "SI",
            Self::Cgs => "cgs",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_gravity_tells_the_two_systems_apart() {
        let down = |g: f64| Vec3::new(0.0, 0.0, -g);
        assert_eq!(Units::from_gravity(&down(9.81)), Some(Units::Si));
        assert_eq!(Units::from_gravity(&down(9.8)), Some(Units::Si));
        assert_eq!(Units::from_gravity(&down(981.0)), Some(Units::Cgs));
        assert_eq!(Units::from_gravity(&down(0.0)), None);
        assert_eq!(Units::from_gravity(&down(1.62)), None);
    }
}
