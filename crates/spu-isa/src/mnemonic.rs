//! The base mnemonics of the SPU instruction set, one enum variant each.

macro_rules! mnemonics {
    ($d:tt; $($variant:ident),* $(,)?) => {
        /// One variant per binutils base mnemonic (199), named by the mnemonic with its first
        /// letter upper-cased. Feature-bit variants and aliases are not variants: they decode to
        /// their base mnemonic (see [`VARIANTS`](crate::VARIANTS)).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[cfg_attr(feature = "defmt", derive(defmt::Format))]
        pub enum Mnemonic { $(
            #[doc = concat!("`", stringify!($variant), "` (see the opcode table).")]
            $variant
        ),* }

        impl Mnemonic {
            /// Every mnemonic, in table order (`ALL[m as usize] == m`).
            pub const ALL: [Mnemonic; [$(Mnemonic::$variant),*].len()] = [$(Mnemonic::$variant),*];
        }

        /// `with_mnemonics!(callback)` expands to `callback!(Stop, Il, ...)`, every mnemonic in
        /// table order: for tables indexed by mnemonic (an interpreter's handlers), built with
        /// the enum so that they cannot fall out of step with it.
        #[macro_export]
        macro_rules! with_mnemonics {
            ($d callback:ident) => { $d callback!($($variant),*) };
        }
    };
}

// `$` for the macro the list defines (`with_mnemonics`), then the list.
mnemonics! { $;
    // BR, first: `stop 0` is the all-zero word, so a zeroed `Instruction` (mnemonic 0, every
    // field 0) is exactly its decode.
    Stop,
    // FX2
    Il, Ilh, Ilhu, Ila, Iohl, Andbi, Andhi, Andi, Orbi, Orhi, Ori, Xorbi, Xorhi, Xori, Ahi, Ai,
    Sfhi, Sfi, Cgtbi, Cgthi, Cgti, Clgtbi, Clgthi, Clgti, Ceqbi, Ceqhi, Ceqi, Hgti, Hlgti, Heqi,
    Clz, Xsbh, Xshw, Xswd, A, Ah, Sf, Sfh, Cgt, Cgtb, Cgth, Clgt, Clgtb, Clgth, Ceq, Ceqb, Ceqh,
    Hgt, Hlgt, Heq, Fceq, Fcmeq, Fcgt, Fcmgt, And, Nand, Or, Nor, Xor, Eqv, Andc, Orc, Addx, Cg,
    Cgx, Sfx, Bg, Bgx, Dfceq, Dfcmeq, Dfcgt, Dfcmgt, Dftsv, Selb,
    // FX3
    Roti, Rotmi, Rotmai, Shli, Rothi, Rothmi, Rotmahi, Shlhi, Rot, Rotm, Rotma, Shl, Roth, Rothm,
    Rotmah, Shlh,
    // FXB
    Cntb, Absdb, Avgb, Sumb,
    // FP6
    Fa, Fs, Fm, Fma, Fms, Fnms,
    // FP7
    Mpyi, Mpyui, Cflts, Cfltu, Csflt, Cuflt, Fscrwr, Mpy, Mpyh, Mpyhh, Mpyhhu, Mpys, Mpyu, Fi,
    Mpyhha, Mpyhhau, Mpya,
    // FPD
    Fesd, Frds, Fscrrd, Dfa, Dfs, Dfm, Dfma, Dfms, Dfnms, Dfnma,
    // NOP
    Nop,
    // SHUF
    Fsmbi, Frest, Frsqest, Fsm, Fsmh, Fsmb, Gb, Gbh, Gbb, Cbd, Chd, Cwd, Cdd, Rotqbii, Rotqmbii,
    Shlqbii, Rotqbyi, Rotqmbyi, Shlqbyi, Cbx, Chx, Cwx, Cdx, Rotqbi, Rotqmbi, Shlqbi, Rotqby,
    Rotqmby, Shlqby, Rotqbybi, Rotqmbybi, Shlqbybi, Shufb,
    // LS
    Lqa, Lqr, Stqa, Stqr, Lqd, Stqd, Lqx, Stqx, Hbra, Hbrr, Hbr,
    // BR
    Br, Brsl, Bra, Brasl, Brz, Brnz, Brhz, Brhnz, Bi, Bisl, Iret, Bisled, Biz, Binz, Bihz, Bihnz,
    Stopd, Sync, Dsync, Orx,
    // SPR
    Mfspr, Rdch, Rchcnt, Mtspr, Wrch,
    // LNOP
    Lnop,
}

impl core::fmt::Display for Mnemonic {
    /// The lower-case assembly name.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// Number of base mnemonics.
pub const MNEMONIC_COUNT: usize = Mnemonic::ALL.len();
