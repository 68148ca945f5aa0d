//! The configuration object: the presets of `docs/spu-timing-model.md` and the simulator's keys.

use pmprobe::spu::isa::IClass;
use pmprobe::spu::pipeline::{Config, ConfigError, MAX_DEPTH, MAX_STALL};

#[test]
fn presets_follow_the_project_decisions() {
    let cell = Config::cell();
    assert!(cell.sp_dual() && !cell.dp_dual() && !cell.ls_line_contend_load_only());
    let edp = Config::celledp();
    assert_eq!((edp.depth(IClass::Fpd), edp.stall(IClass::Fpd)), (9, 0));
    assert!(edp.dp_dual() && edp.sp_dual());
    for class in IClass::ALL {
        if class != IClass::Fpd {
            assert_eq!(edp.timing(class), cell.timing(class), "{}", class.name());
        }
    }
    assert_eq!(Config::preset("cell"), Some(cell));
    assert_eq!(Config::preset("celledp"), Some(edp));
    assert_eq!(Config::preset("ps3"), None);
}

#[test]
fn feature_keys_accept_the_simulator_spellings() {
    for (text, value) in [
        ("TRUE", true),
        ("true", true),
        ("1", true),
        ("FALSE", false),
        ("false", false),
        ("0", false),
    ] {
        for key in [
            "spu/feature/sp-dual",
            "spu/feature/dp-dual",
            "spu/feature/ls-line-contend-load-only",
        ] {
            let mut config = Config::cell();
            config.configure(key, text).unwrap();
            let got = match key {
                "spu/feature/sp-dual" => config.sp_dual(),
                "spu/feature/dp-dual" => config.dp_dual(),
                _ => config.ls_line_contend_load_only(),
            };
            assert_eq!(got, value, "{key}={text}");
        }
    }
    let mut config = Config::cell();
    assert_eq!(
        config.configure("spu/feature/dp-dual", "yes"),
        Err(ConfigError::InvalidBool {
            key: "spu/feature/dp-dual",
            value: "yes"
        })
    );
    assert_eq!(
        config,
        Config::cell(),
        "a refused change leaves the value as it was"
    );
}

#[test]
fn pipe_keys_set_depth_and_stall_of_every_class_within_range() {
    for class in IClass::ALL {
        let mut config = Config::cell();
        config
            .configure(&format!("spu/pipe/{}/depth", class.name()), "9")
            .unwrap();
        config
            .configure(&format!("spu/pipe/{}/stall", class.name()), "3")
            .unwrap();
        assert_eq!((config.depth(class), config.stall(class)), (9, 3));
    }
    let mut config = Config::cell();
    let max_depth = MAX_DEPTH.to_string();
    assert!(config.configure("spu/pipe/FX2/depth", &max_depth).is_ok());
    let too_deep = (u32::from(MAX_DEPTH) + 1).to_string();
    assert!(matches!(
        config.configure("spu/pipe/FX2/depth", &too_deep),
        Err(ConfigError::InvalidNumber {
            key: "spu/pipe/FX2/depth",
            ..
        })
    ));
    assert!(config.configure("spu/pipe/FX2/depth", "0").is_err());
    assert!(config.configure("spu/pipe/FX2/depth", "-1").is_err());
    assert!(
        config
            .configure("spu/pipe/FX2/stall", &MAX_STALL.to_string())
            .is_ok()
    );
    assert!(config.configure("spu/pipe/FX2/stall", "x").is_err());
    assert!(config.set_depth(IClass::Fp6, 0).is_err());
    assert!(config.set_stall(IClass::Fpd, 1000).is_err());
    let error = config
        .configure("spu/pipe/FX2/depth", "99")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("spu/pipe/FX2/depth") && error.contains("99"),
        "{error}"
    );
}

#[test]
fn unknown_keys_are_errors_naming_the_key() {
    let mut config = Config::cell();
    for key in [
        "spu/pipe/FX4/depth",
        "spu/pipe/FX2/latency",
        "spu/pipe/FX2",
        "spu/feature/quad-dual",
        "cpu/pipe/FX2/depth",
        "",
    ] {
        assert_eq!(
            config.configure(key, "1"),
            Err(ConfigError::UnknownKey(key))
        );
    }
    assert_eq!(
        config.configure_assignment("spu/pipe/FX2/depth"),
        Err(ConfigError::MissingEquals("spu/pipe/FX2/depth"))
    );
    config.configure_assignment("spu/pipe/FX2/depth=5").unwrap();
    assert_eq!(config.depth(IClass::Fx2), 5);
    let mut listing = String::new();
    config.write_listing(&mut listing).unwrap();
    assert!(listing.contains("spu/pipe/FX2/depth 5\n"));
    assert!(listing.contains("spu/pipe/FPD/stall 6\n"));
    assert!(listing.contains("spu/feature/dp-dual FALSE\n"));
}
