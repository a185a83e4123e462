//! The two sides, and a pair of values indexed by side.

use core::ops::Not;

/// One of the two sides. Light moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Color {
    /// The side that moves first.
    Light = 0,
    /// The side that moves second.
    Dark = 1,
}

impl Color {
    /// Both sides, Light first.
    pub const ALL: [Color; 2] = [Color::Light, Color::Dark];

    /// `0` for Light, `1` for Dark.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The side's name in lower case: `light` or `dark`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::Light => "light",
            Color::Dark => "dark",
        }
    }

    /// The letter used in position strings: `l` or `d`.
    pub const fn char(self) -> char {
        match self {
            Color::Light => 'l',
            Color::Dark => 'd',
        }
    }
}

impl Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        match self {
            Color::Light => Color::Dark,
            Color::Dark => Color::Light,
        }
    }
}

impl core::fmt::Display for Color {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A value for each side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ByColor<T> {
    /// Light's value.
    pub light: T,
    /// Dark's value.
    pub dark: T,
}

impl<T> ByColor<T> {
    /// Builds a pair by calling `f` for Light, then Dark.
    pub fn new_with(mut f: impl FnMut(Color) -> T) -> ByColor<T> {
        ByColor {
            light: f(Color::Light),
            dark: f(Color::Dark),
        }
    }

    /// The value for `color`.
    #[inline]
    pub fn get(&self, color: Color) -> &T {
        match color {
            Color::Light => &self.light,
            Color::Dark => &self.dark,
        }
    }

    /// The value for `color`, mutably.
    #[inline]
    pub fn get_mut(&mut self, color: Color) -> &mut T {
        match color {
            Color::Light => &mut self.light,
            Color::Dark => &mut self.dark,
        }
    }
}
