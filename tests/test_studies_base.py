"""Tests of simlib.studies.base: the Study shape, steps, checks and registry."""
import logging
import subprocess
import sys

import pytest

from simlib.errors import ConfigError
from helpers_pipeline import repo_config, repo_registry

from simlib.studies import Files, Step, StepContext, Study, load_study, selected_keys, study_class
from simlib.studies.base import check_batches, check_policies, check_registry, check_traces, load_tag


def config(**studies):
    return {"scale": "smoke", "studies": studies, "registry": repo_registry(),
            "traces": {"catalog": {"SDSC-SP2": {"file": "s.swf.gz", "machine_procs": 128}}}}


class Hello(Study):
    key = "hello"

    def steps(self):
        return [Step("hello_say", output={"txt": "out/{scale}/hello.txt"}, run=self.say)]

    def say(self, ctx):
        ctx.log.info("saying hello")
        with open(ctx.output.txt, "w") as fh:
            fh.write(f"hello at {ctx.scale} with {ctx.params['word']}\n")


def test_a_step_runs_from_a_context_without_snakemake(tmp_path):
    study = Hello(config(hello={}))
    out = tmp_path / "hello.txt"
    ctx = StepContext(input=Files(), output=Files(txt=str(out)), params={"word": "x"},
                      wildcards={"scale": "smoke"}, log=logging.getLogger("t"), config={})
    study.step("hello_say").run(ctx)
    assert out.read_text() == "hello at smoke with x\n"
    with pytest.raises(ConfigError, match="no step 'nope'"):
        study.step("nope")


def test_step_defaults_and_validation():
    s = Step("a", output={"x": "p"}, run=print, stage="simulate")
    assert s.group == "sweep"
    assert Step("b", output={"x": "p"}, run=print, stage="figures").group == "summary"
    assert Step("c", output={"x": "p"}, run=print, local=True).group is None
    with pytest.raises(ConfigError, match="stage 'plot'"):
        Step("d", output={"x": "p"}, run=print, stage="plot")
    with pytest.raises(ConfigError, match="report marks unknown outputs"):
        Step("e", output={"x": "p"}, run=print, report={"y": "cube"})
    assert Step("f", output={"d": "dir"}, run=print, directories=["d"]).directories == ["d"]
    with pytest.raises(ConfigError, match="directories names unknown outputs"):
        Step("g", output={"x": "p"}, run=print, directories=["d"])
    with pytest.raises(ConfigError, match="a directory output cannot be reported"):
        Step("h", output={"d": "dir"}, run=print, directories=["d"], report={"d": "cube"})


def test_step_batch_folds_wildcards_and_is_checked():
    out = {"s": "r/{scale}/{trace}/{policy}/load{load}.json"}
    s = Step("b", output=out, run=print,
             batch={"easy": [{"trace": "A", "load": "0.5"}, {"trace": "B", "load": "0.5"}]})
    assert s.folds == ("trace", "load") and Step("u", output=out, run=print).folds == ()
    assert s.folded(out["s"], s.batch["easy"][1]) == "r/{scale}/B/{policy}/load0.5.json"
    with pytest.raises(ConfigError, match="every batch entry must give the same wildcards"):
        Step("c", output=out, run=print, batch={"": [{"trace": "A"}, {"load": "0.5"}]})
    with pytest.raises(ConfigError, match=r"batch folds \['seed'\], absent from output 's'"):
        Step("d", output=out, run=print, batch={"": [{"seed": "0"}]})
    assert s.batch_rule("easy") == "b_easy" and s.batch_rule("") == "b"
    with pytest.raises(ConfigError, match="give the same rule name twice"):
        Step("e", output=out, run=print, batch={"a-b": [{"trace": "A"}], "a_b": [{"trace": "B"}]})
    with pytest.raises(ConfigError, match="inline constraint"):
        Step("f", output={"s": "r/{trace,[A-Z]+}.json"}, run=print, batch={"": [{"trace": "A"}]})


def test_fold_only_at_scales_that_batch():
    cfg = {**config(hello={}), "scales": {"smoke": {"batch": True}, "default": {}}}
    smoke, default = Hello(cfg), Hello(cfg, "default")
    assert smoke.batching and not default.batching
    assert default.fold(seed=[0, 1]) == {}
    assert smoke.fold(seed=[0, 1], load=[0.5]) == {"": [{"seed": "0", "load": "0.5"},
                                                        {"seed": "1", "load": "0.5"}]}
    assert smoke.fold({"trace": "A"}, label="easy") == {"easy": [{"trace": "A"}]}
    assert smoke.fold(label="easy") == {}  # nothing to fold: no batch
    groups = {"easy": [{"trace": "A"}], "los": [], "fcfs": [{"trace": "A"}, {"trace": "B"}]}
    assert smoke.fold_groups(groups) == {"easy": [{"trace": "A"}],
                                         "fcfs": [{"trace": "A"}, {"trace": "B"}]}
    assert default.fold_groups(groups) == {}
    with pytest.raises(TypeError):
        smoke.fold({"trace": "A"}, seed=[0])


class Twice(Study):
    key = "twice"

    def steps(self):
        out = {"o": "r/{scale}/{seed}.txt"}
        return [Step("twice_short", output=out, run=print, batch=self.fold(seed=[0, 1])),
                Step("twice_long", output={"o": "l/{scale}/{seed}.txt"}, run=print,
                     batch=self.fold(seed=[0, 1]))]


def test_a_scale_may_batch_some_steps_only():
    cfg = {**config(twice={}), "scales": {"default": {"batch": ["twice_short"]},
                                          "smoke": {"batch": True}, "full": {"batch": False}}}
    batched = {s.name: bool(s.batch) for s in Twice(cfg, "default").steps()}
    assert batched == {"twice_short": True, "twice_long": False}
    assert all(s.batch for s in Twice(cfg, "smoke").steps())
    assert not any(s.batch for s in Twice(cfg, "full").steps())
    assert Twice(cfg, "default").step("twice_long").batch == {}
    check_batches(cfg, [Twice(cfg, "default")])
    cfg["scales"]["full"]["batch"] = ["twice_short", "twice_lng"]
    with pytest.raises(ConfigError, match=r"config scales.full.batch\[1\]: no step 'twice_lng'"):
        check_batches(cfg, [Twice(cfg, "default")])
    # A disabled study's steps may stay listed.
    cfg["scales"]["full"]["batch"] = ["twice_short", "hello_say"]
    check_batches({**cfg, "studies": {**cfg["studies"], "hello": {"enabled": False}}},
                  [Twice(cfg, "default")])


def test_base_check_names_the_key():
    with pytest.raises(ConfigError, match=r"config studies.hello.traces\[1\]: unknown trace 'NOPE'"):
        Hello(config(hello={"traces": ["SDSC-SP2", "NOPE"]})).check()
    with pytest.raises(ConfigError, match="config studies.hello.policies.eazy: unknown policy"):
        Hello(config(hello={"policies": {"eazy": {}}})).check()
    with pytest.raises(ConfigError, match="policies.los: los: parameter lookahead must be an integer"):
        check_policies("config studies.hello.policies", {"los": {"lookahead": "abc"}})
    check_traces(config(), "x", ["SDSC-SP2"])


def test_registry_and_loading():
    assert {"baseline", "kumar", "kumar_fig1", "utrera", "dutot", "zeng"} <= set(repo_registry())
    cfg = config(baseline={"traces": ["SDSC-SP2"], "policies": {"easy": {}},
                           "loads": {"smoke": [0.5], "default": [0.5], "full": [0.5]}})
    study = load_study("baseline", cfg)  # imported on first use
    assert study_class("baseline", cfg) is type(study)
    assert study.key == "baseline" and study.scale == "smoke"
    assert [s.name for s in study.steps()] == ["baseline_simulate", "baseline_aggregate",
                                               "baseline_figures"]
    with pytest.raises(ConfigError, match="studies.mystery: no study registered under 'mystery'"):
        load_study("mystery", config(mystery={}))
    bad = {**config(mystery={}), "registry": {"mystery": "no_such_mod:Mystery"}}
    with pytest.raises(ConfigError, match="registry.mystery: cannot import 'no_such_mod'.*PYTHONPATH"):
        load_study("mystery", bad)
    bad["registry"]["mystery"] = "simlib.studies.base:Files"
    with pytest.raises(ConfigError, match="is not a subclass of simlib.studies.Study"):
        load_study("mystery", bad)
    bad["registry"]["mystery"] = "simlib.studies.base:Nope"
    with pytest.raises(ConfigError, match="module 'simlib.studies.base' has no 'Nope'"):
        load_study("mystery", bad)


def test_the_registry_and_the_grids_must_match_both_ways(tmp_path):
    grids = tmp_path / "config" / "grids"
    grids.mkdir(parents=True)
    (grids / "mine.yaml").write_text("studies:\n  mine:\n    jobs: 3\n")
    unregistered = {"registry": {"a": "m:A"}, "studies": {"a": {}, "mine": {}}}
    with pytest.raises(ConfigError, match=r"config studies.mine \(config/grids/mine.yaml\): no "
                                          r"study registered under 'mine'.*registered: a"):
        check_registry(unregistered, repo=tmp_path)
    (grids / "other.yaml").write_text("registry:\n  ghost: m:Ghost\n")
    without_grid = {"registry": {"ghost": "m:Ghost"}, "studies": {}}
    with pytest.raises(ConfigError, match=r"config registry.ghost \(config/grids/other.yaml\): "
                                          r"study 'ghost' is registered but has no grid entry"):
        check_registry(without_grid, repo=tmp_path)


def test_only_selects_studies_and_their_requirements():
    class Needy(Study):
        key = "needy"
        requires = ("hello",)
    import types
    sys.modules["needy_mod"] = types.SimpleNamespace(Needy=Needy, Hello=Hello)
    cfg = {"registry": {"hello": "needy_mod:Hello", "needy": "needy_mod:Needy",
                        "other": "needy_mod:Hello"},
           "studies": {"hello": {}, "needy": {}, "other": {"enabled": False}}}
    try:
        assert selected_keys(cfg) == ["hello", "needy"]
        assert selected_keys({**cfg, "only": "needy"}) == ["hello", "needy"]
        assert selected_keys({**cfg, "only": "other"}) == ["other"]   # named: built
        assert selected_keys({**cfg, "only": "needy", "skip": "hello"}) == ["needy"]
        with pytest.raises(ConfigError, match="config skip: unknown study 'dutto'"):
            selected_keys({**cfg, "skip": "dutto"})
        with pytest.raises(ConfigError, match="config only: unknown study 'nosuch'; registered "
                                              "studies: hello, needy, other"):
            selected_keys({**cfg, "only": "hello,nosuch"})
    finally:
        del sys.modules["needy_mod"]


def test_a_used_study_left_out_is_said_in_one_line():
    class Reader(Study):
        key = "reader"
        uses = {"hello": "Fig. 9 is"}
    cls = "simlib.studies.base:Study"
    cfg = {"registry": {"hello": cls, "reader": cls}, "studies": {"hello": {}, "reader": {}}}
    assert Reader(cfg).left_out() == []
    assert Reader({**cfg, "only": "reader"}).left_out() == [
        "study reader: Fig. 9 is left out: it needs study hello's results (build hello too to "
        "have them)"]
    assert Reader({**cfg, "skip": "hello"}).left_out() != []


def test_load_tag_round_trips():
    assert float(load_tag(0.1)) == 0.1 and load_tag(1) == "1.0"


def test_studies_import_lazily():
    # A pipeline job loads one study: importing the package must not pull in
    # every study, and no study module may import scipy, xarray or matplotlib
    # at import time (each costs 0.4-1 s per job; the steps import them).
    code = ("import importlib, sys\n"
            "import simlib.studies as s\n"
            f"mods = {sorted({v.split(':')[0] for v in repo_registry().values()})!r}\n"
            "first = sorted(m for m in mods if m in sys.modules)\n"
            "for m in mods:\n"
            "    importlib.import_module(m)\n"
            "heavy = sorted(m for m in ('scipy', 'xarray', 'matplotlib') if m in sys.modules)\n"
            "print(first, heavy)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[] []"


def test_published_numbers_are_read_by_the_studys_loader(tmp_path):
    # Hello has no published numbers; a study whose loader module is beside
    # it (here simlib.studies.zeng's) reads its file once, and a missing one
    # names the config key.
    with pytest.raises(TypeError, match="no published numbers"):
        _ = Hello(config(hello={"published": "p.yaml"}), repo=tmp_path).published

    class Printed(Study):
        key = "printed"
        published_loader = "simlib.studies.zeng.published"

    missing = Printed(config(printed={"published": "nope.yaml"}), repo=tmp_path)
    assert missing.published_path == str(tmp_path / "nope.yaml")
    with pytest.raises(ConfigError, match="config studies.printed.published: no such file .*nope.yaml"):
        _ = missing.published
    from simlib.studies.zeng.published import load_published
    zeng = load_study("zeng", repo_config("zeng"))
    assert zeng.published == load_published(zeng.published_path)
    assert zeng.published is zeng.published   # read once
    # A study subclassed in another package keeps its parent's loader.
    from simlib.studies.zeng import Zeng

    class MyZeng(Zeng):
        key = "zeng"

    mine = MyZeng({"scale": "smoke", "studies": {"zeng": {"published": "config/published/zeng.yaml"}}})
    assert MyZeng.__module__ == __name__ and mine.published == zeng.published
