"""The Python module `cosima` against the command line (CTest python.module, label ecosystem).

Environment (set by python/CMakeLists.txt): PYTHONPATH names the module's folder, COSIMA_EXE the
cosima command, COSIMA_EXAMPLES the examples folder, COSIMA_FMU_DIR the project's FMUs, COSIMA_C_FMU_DIR the
tests' C FMUs (tests/fmus).
"""
import csv
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import cosima

EXE = os.environ.get("COSIMA_EXE", "build/cosima")
EXAMPLES = pathlib.Path(os.environ.get("COSIMA_EXAMPLES", "examples"))
FMU_DIR = pathlib.Path(os.environ.get("COSIMA_FMU_DIR", "build/fmus"))
C_FMU_DIR = pathlib.Path(os.environ.get("COSIMA_C_FMU_DIR", "build/test_fmus"))

B3_FMU = EXAMPLES / "b3_lotka_volterra_fmu.json"
B3 = EXAMPLES / "b3_lotka_volterra.json"


def cli(*args):
    """Runs the cosima command; returns (status, stderr)."""
    done = subprocess.run([EXE, *map(str, args)], capture_output=True, text=True, check=False)
    return done.returncode, done.stderr


def read_csv(path):
    """{column: list of float} of a results CSV (float() of the 17 significant digits is exact)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    return {name: [float(row[c]) for row in body] for c, name in enumerate(header)}


def b3_dict():
    """The native B3 scenario as a dict, shortened."""
    return {
        "name": "B3 from a dict",
        "start": 0,
        "stop": 2,
        "systems": {
            "prey": {"model": "b3.prey", "integrator": "dopri5", "integrator_options": {"rtol": 1e-10, "atol": 1e-12}},
            "predator": {"model": "b3.predator", "integrator": "dopri5",
                         "integrator_options": {"rtol": 1e-10, "atol": 1e-12}},
        },
        "connections": [["prey.p", "predator.p"], ["predator.q", "prey.q"]],
        "method": {"type": "jacobi", "dt": 0.01},
    }


class ThroughFmus(unittest.TestCase):
    """(1) B3 through the project's FMUs: the module's arrays are the CLI's CSV, bit for bit."""

    def test_b3_fmu_equals_cli_csv(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp) / "b3.csv"
            status, err = cli("run", B3_FMU, "--out", out, "--quiet")
            self.assertEqual(status, 0, err)
            expected = read_csv(out)
        result = cosima.run(B3_FMU)
        self.assertEqual(result.columns, [c for c in expected if c != "time"])
        self.assertEqual(len(result), len(expected["time"]))
        self.assertGreater(len(result), 1000)
        self.assertEqual(result.time.dtype, np.float64)
        self.assertEqual(result.time.ndim, 1)
        # bitwise: the CSV carries 17 significant digits, which round-trip every double
        np.testing.assert_array_equal(result.time, np.array(expected["time"]))
        self.assertEqual(result.time.tobytes(), np.array(expected["time"]).tobytes())
        for column in result.columns:
            self.assertEqual(result[column].tobytes(), np.array(expected[column]).tobytes(), column)
        self.assertEqual(result.stats["method"], "jacobi")
        self.assertEqual(result.stats["macro_steps"], 20000)
        as_dict = result.to_dict()
        self.assertEqual(list(as_dict), ["time", *result.columns])
        self.assertIs(as_dict["prey.p"], result["prey.p"])

    def test_path_like_and_scenario_object(self):
        scenario = cosima.load(pathlib.Path(B3_FMU), overrides={"stop": 1})
        self.assertEqual(scenario.systems, ["prey", "predator"])
        self.assertEqual(scenario.method, {"type": "jacobi", "dt": 0.001})
        self.assertEqual(scenario.stop, 1.0)
        self.assertEqual(scenario.file, str(B3_FMU))
        result = scenario.run()
        self.assertEqual(result.time[-1], 1.0)


class Errors(unittest.TestCase):
    """(2) cosima's errors as cosima.Error, with the message the CLI prints."""

    def cli_error(self, document):
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "bad.json"
            path.write_text(__import__("json").dumps(document))
            status, err = cli("run", path, "--out", pathlib.Path(tmp) / "bad.csv", "--quiet")
        self.assertEqual(status, 1, err)
        prefix = "cosima: error: "
        self.assertTrue(err.startswith(prefix), err)
        return err[len(prefix):].strip()

    def test_unknown_model(self):
        document = b3_dict()
        document["systems"]["prey"]["model"] = "b3.nope"
        message = self.cli_error(document)
        self.assertIn("unknown model 'b3.nope'", message)
        with self.assertRaises(cosima.Error) as caught:
            cosima.run(document)
        self.assertEqual(str(caught.exception), message)
        self.assertIsInstance(caught.exception, RuntimeError)

    def test_missing_port(self):
        document = b3_dict()
        document["connections"][1] = ["predator.nope", "prey.q"]
        message = self.cli_error(document)
        self.assertIn("system 'predator' has no output 'nope'", message)
        with self.assertRaises(cosima.Error) as caught:
            cosima.load(document).run()
        self.assertEqual(str(caught.exception), message)

    def test_parse_error_at_load_and_set_is_atomic(self):
        with self.assertRaisesRegex(cosima.Error, "unknown key 'bogus'"):
            cosima.load(b3_dict(), overrides={"bogus": 1})
        scenario = cosima.load(b3_dict())
        with self.assertRaisesRegex(cosima.Error, "must be a number"):
            scenario.set("stop", "later")
        self.assertEqual(scenario.stop, 2.0)  # unchanged
        with self.assertRaisesRegex(cosima.Error, "cannot open scenario"):
            cosima.load("/nonexistent/scenario.json")

    def test_executor_and_method_errors(self):
        with self.assertRaisesRegex(cosima.Error, "mpirun"):
            cosima.run(b3_dict(), executor="mpi")
        # a system's process that dies on the way out (in fmi2FreeInstance) fails the run, as on the
        # command line
        crash_at_teardown = {"stop": 1, "method": {"type": "jacobi", "dt": 0.01},
                             "systems": {"m": {"fmu": str(C_FMU_DIR / "cosima_test_misbehave.fmu"),
                                               "parameters": {"mode": 7, "at": 0.5}}}}
        with self.assertRaisesRegex(cosima.Error, "system 'm'.*died of SIGSEGV"):
            cosima.run(crash_at_teardown, executor="processes")
        with self.assertRaisesRegex(cosima.Error, "unknown executor"):
            cosima.run(b3_dict(), executor="gpu")
        with self.assertRaisesRegex(cosima.Error, "unknown method 'nope'"):
            cosima.run(b3_dict(), method="nope")

    def test_missing_column(self):
        result = cosima.run(b3_dict(), stop=0.1)
        with self.assertRaises(KeyError) as caught:
            result["prey.nope"]
        self.assertIn("prey.nope", str(caught.exception))
        self.assertIn("predator.q", str(caught.exception))
        self.assertIn("prey.p", result)
        self.assertNotIn("prey.nope", result)


class DictsOverridesMethods(unittest.TestCase):
    """(3) a dict scenario, overrides and the method choice, against the CLI's --set."""

    def test_overrides_equal_cli_set(self):
        overrides = {"method.dt": 2e-2, "systems.prey.parameters.alpha": 0.7, "stop": 1.5}
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp) / "o.csv"
            status, err = cli("run", B3, "--quiet", "--out", out, "--set", "method.dt=0.02",
                              "--set", "systems.prey.parameters.alpha=0.7", "--set", "stop=1.5")
            self.assertEqual(status, 0, err)
            expected = read_csv(out)
        result = cosima.load(B3, overrides=overrides).run()
        self.assertEqual(result.time.tobytes(), np.array(expected["time"]).tobytes())
        self.assertEqual(result["prey.p"].tobytes(), np.array(expected["prey.p"]).tobytes())
        # the parameter did act
        plain = cosima.load(B3, overrides={"method.dt": 2e-2, "stop": 1.5}).run()
        self.assertFalse(np.array_equal(plain["prey.p"], result["prey.p"]))

    def test_set_and_methods(self):
        scenario = cosima.load(b3_dict(), overrides={"stop": 1})
        scenario.set("systems.prey.parameters.alpha", 0.7)
        scenario.set("method.dt", 0.05)
        self.assertEqual(scenario.to_dict()["systems"]["prey"]["parameters"], {"alpha": 0.7})
        self.assertEqual(scenario.method, {"type": "jacobi", "dt": 0.05})
        self.assertEqual(scenario.name, "B3 from a dict")
        jacobi = scenario.run(method="jacobi")
        self.assertEqual(jacobi.stats["method"], "jacobi")
        self.assertEqual(jacobi.stats["macro_steps"], 20)
        jfm = scenario.run(method="ifosmondi-jfm", dt=0.1)  # PETSc SNES, through the plugin
        self.assertEqual(jfm.stats["method"], "ifosmondi-jfm")
        self.assertIn("macro_steps", jfm.stats)
        self.assertGreater(jfm.stats["iterations"], 0)
        self.assertEqual(jfm.time[-1], 1.0)
        # both near the coupled solution
        reference = scenario.run(method="monolithic", dt=0.05)
        self.assertLess(abs(jfm["prey.p"][-1] - reference["prey.p"][-1]), 1e-3)
        self.assertLess(abs(jacobi["prey.p"][-1] - reference["prey.p"][-1]), 1e-2)
        chosen = scenario.run(method="auto")
        self.assertEqual(chosen.stats["method"], "ifosmondi-jfm")
        self.assertIn("method_choice", chosen.stats)
        # run keywords do not stick to the scenario
        self.assertEqual(scenario.method["type"], "jacobi")

    def test_unused_option_is_a_warning(self):
        result = cosima.run(b3_dict(), stop=0.1, overrides={"method.epsilon": 1e-6})
        self.assertTrue(any("method.epsilon" in w for w in result.warnings), result.warnings)


class Listings(unittest.TestCase):
    """(4) info, models, methods, version."""

    def test_info(self):
        info = cosima.info(FMU_DIR / "b3_prey.fmu")
        self.assertIsInstance(info, dict)
        self.assertEqual(info["fmi_version"], "2.0")
        self.assertTrue(info["interfaces"]["co_simulation"]["can_get_and_set_fmu_state"])
        variables = {v["name"]: v for v in info["variables"]}
        self.assertEqual(variables["p"]["causality"], "output")
        self.assertEqual(variables["q"]["causality"], "input")
        self.assertEqual(variables["q"]["type"], "Real")
        self.assertEqual(variables["q"]["start"], 0.0)
        self.assertEqual(variables["solver_steps_per_call"]["description"], "euler steps per doStep")
        text = cosima.info(FMU_DIR / "b3_prey.fmu", text=True)
        out = subprocess.run([EXE, "info", str(FMU_DIR / "b3_prey.fmu")], capture_output=True, text=True, check=True)
        self.assertEqual(text, out.stdout)
        with self.assertRaises(cosima.Error):
            cosima.info("/nonexistent.fmu")

    def test_info_fmi1(self):
        info = cosima.info(C_FMU_DIR / "cosima_test_fmi1_mass1_cs.fmu")
        self.assertEqual(info["fmi_version"], "1.0")
        self.assertIn("co_simulation", info["interfaces"])
        variables = {v["name"]: v for v in info["variables"]}
        self.assertTrue(variables["minus_s1_out"]["negated_alias"])
        self.assertNotIn("negated_alias", variables["s1_out"])
        self.assertEqual(variables["m1"]["causality"], "parameter")  # variability="parameter" in FMI 1.0
        result = cosima.run({"stop": 0.01, "method": {"type": "jacobi", "dt": 1e-3},
                             "systems": {"m": {"fmu": str(C_FMU_DIR / "cosima_test_fmi1_mass1_cs.fmu")}}})
        self.assertEqual(list(result["m.minus_s1_out"]), [-s for s in result["m.s1_out"]])

    def test_a_runs_warnings_are_said_once(self):
        # cosima.run on a dict reads it once with its keyword arguments: the guessed step is warned once
        code = ("import cosima; cosima.run({'systems': {'m': {'fmu': %r}}}, stop=0.1)"
                % str(C_FMU_DIR / "cosima_test_fmi1_mass1_me.fmu"))
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env=dict(os.environ))
        self.assertEqual(done.stderr.count("guessed method.dt = 0.0002"), 1, done.stderr)

    def test_models(self):
        models = cosima.models()
        names = [m["name"] for m in models]
        self.assertIn("b3.prey", names)
        self.assertTrue(all(isinstance(m["description"], str) and m["description"] for m in models))
        listing = subprocess.run([EXE, "models"], capture_output=True, text=True, check=True).stdout
        for m in models:
            self.assertIn(m["name"], listing)

    def test_methods(self):
        methods = cosima.methods()
        for name in ("jacobi", "gauss-seidel", "ifosmondi", "ifosmondi-jfm", "missiles", "defect-jacobi", "monolithic",
                     "auto"):
            self.assertIn(name, methods)
        # every one runs (or says why not), none is unknown to the factory
        for name in methods:
            try:
                cosima.run(b3_dict(), method=name, stop=0.05)
            except cosima.Error as e:
                self.assertNotIn("unknown method", str(e))

    def test_version(self):
        self.assertRegex(cosima.__version__, r"^\d+\.\d+\.\d+")
        for f in (cosima.load, cosima.run, cosima.info, cosima.models, cosima.methods, cosima.Scenario.set,
                  cosima.Scenario.run, cosima.Result.to_dict):
            self.assertTrue(f.__doc__, f)


class Plot(unittest.TestCase):
    """cosima.plot(): a PNG of the result's columns (matplotlib, Debian python3-matplotlib)."""

    def test_plot_writes_a_png(self):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            self.skipTest("matplotlib is absent (Debian: python3-matplotlib; make bootstrap installs it)")
        result = cosima.run(B3_FMU, stop=2.0)
        with tempfile.TemporaryDirectory() as tmp:
            png = pathlib.Path(tmp) / "b3.png"
            figure = cosima.plot(result, variables=["prey.p"], file=png, title="B3")
            self.assertEqual(png.read_bytes()[:8], b"\x89PNG\r\n\x1a\n")
            self.assertEqual([line.get_label() for line in figure.axes[0].lines], ["prey.p"])
            figure = cosima.plot(result, file=pathlib.Path(tmp) / "all.svg")
            self.assertEqual([line.get_label() for line in figure.axes[0].lines], result.columns)


class Executors(unittest.TestCase):
    """(5) threads and processes give the sequential results, bit for bit."""

    def test_threads_and_processes_equal_sequential(self):
        scenario = cosima.load(B3_FMU, overrides={"stop": 2})
        sequential = scenario.run()
        for executor in ("threads:2", "processes", "processes:1"):
            other = scenario.run(executor=executor)
            self.assertEqual(other.time.tobytes(), sequential.time.tobytes(), executor)
            for column in sequential.columns:
                self.assertEqual(other[column].tobytes(), sequential[column].tobytes(), (executor, column))
        jfm = scenario.run(method="ifosmondi-jfm", dt=0.05)
        jfm_threads = scenario.run(method="ifosmondi-jfm", dt=0.05, executor="threads:2")
        self.assertEqual(jfm_threads["prey.p"].tobytes(), jfm["prey.p"].tobytes())


class SixtyFourBitIntegers(unittest.TestCase):
    """(8) FMI 3.0 Int64 / UInt64 exact over their whole range: Python ints in, numpy int64 / uint64 out."""

    def scenario(self):
        types = str(C_FMU_DIR / "cosima_fmi3_types.fmu")
        return {
            "stop": 0.3, "method": {"type": "jacobi", "dt": 0.1},
            "systems": {"a": {"fmu": types, "parameters": {"ubig": 2**64 - 1}}, "b": {"fmu": types}},
            "inputs": {"a.u_UInt64": 2**64 - 101, "a.u_Int64": -2**63 + 1},
            "connections": [["a.count", "b.u_UInt64"], ["a.y_Int64", "b.u_Int64"]],
            "output": {"variables": ["a.count", "b.count", "b.y_Int64", "a.ubig"]},
        }

    def test_uint64_max_and_a_counter_round_trip_exactly(self):
        result = cosima.run(self.scenario())
        self.assertEqual(result["a.ubig"].dtype, np.uint64)
        self.assertEqual(int(result["a.ubig"][-1]), 2**64 - 1)  # UInt64's maximum
        # a counts its steps from 2^64 - 101; b counts on from a's count at the previous point
        self.assertEqual([int(v) for v in result["a.count"]], [2**64 - 101 + k for k in range(4)])
        self.assertEqual([int(v) for v in result["b.count"]], [2**64 - 101] + [2**64 - 102 + 2 * k for k in (1, 2, 3)])
        self.assertEqual(result["b.y_Int64"].dtype, np.int64)
        self.assertEqual(int(result["b.y_Int64"][-1]), -2**63 + 3)
        # the same as the command line writes (exact integers in the CSV)
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "s.json"
            path.write_text(__import__("json").dumps(self.scenario()))
            out = pathlib.Path(tmp) / "o.csv"
            status, err = cli("run", path, "--quiet", "--out", out)
            self.assertEqual(status, 0, err)
            with open(out, newline="") as f:
                last = list(csv.reader(f))[-1]
        self.assertEqual(last[1:], [str(int(result[c][-1])) for c in ("a.count", "b.count", "b.y_Int64", "a.ubig")])

    def test_an_integer_beyond_64_bits_is_refused_by_name(self):
        scenario = self.scenario()
        scenario["systems"]["a"]["parameters"]["ubig"] = 2**64
        with self.assertRaisesRegex(ValueError, r"ubig: the integer 18446744073709551616 is outside \[-2\^63, 2\^64 - 1\]"):
            cosima.run(scenario)


class Interrupts(unittest.TestCase):
    """Ctrl-C during run(): KeyboardInterrupt within a second, with the results computed so far."""

    def test_sigint_stops_the_run_with_its_partial_results(self):
        import signal
        import threading
        import time
        scenario = cosima.load(B3, overrides={"stop": 1e6, "method": {"type": "jacobi", "dt": 1e-3},
                                              "output": {"interval": 1.0}})
        timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
        started = time.monotonic()
        timer.start()
        with self.assertRaises(KeyboardInterrupt) as caught:
            scenario.run()
        elapsed = time.monotonic() - started
        timer.join()
        self.assertLess(elapsed, 1.5)  # 0.5 s until the signal, then at most a second
        partial = caught.exception.args[0]
        self.assertGreater(len(partial.time), 1)
        self.assertLess(partial.time[-1], 1e6)
        self.assertTrue(partial.stats["terminated_early"])
        self.assertEqual(partial.stats["interrupted_by"], signal.SIGINT)
        # the next run is not stopped by the old request
        self.assertEqual(cosima.load(B3, overrides={"stop": 0.1}).run().time[-1], 0.1)

    def test_sigint_ends_a_wait_on_a_hung_process_within_a_second(self):
        import signal
        import threading
        import time
        hung = {"stop": 1, "method": {"type": "jacobi", "dt": 0.01},
                "systems": {"m": {"fmu": str(C_FMU_DIR / "cosima_test_misbehave.fmu"),
                                  "parameters": {"mode": 4, "at": 0.1}}}}
        timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
        started = time.monotonic()
        timer.start()
        with self.assertRaises(KeyboardInterrupt):
            cosima.run(hung, executor="processes")  # no fmu_timeout: only Ctrl-C ends it
        elapsed = time.monotonic() - started
        timer.join()
        self.assertLess(elapsed, 3.0)  # 1 s until the signal, a second's grace for the step, then killed
        self.assertEqual(cosima.load(B3, overrides={"stop": 0.1}).run(executor="processes").time[-1], 0.1)


class ScenarioConversion(unittest.TestCase):
    """A dict or list that no scenario can be — a cycle, 10^5 levels deep — is a ValueError naming where."""

    def test_a_cycle_is_named(self):
        scenario = b3_dict()
        scenario["systems"]["prey"]["loop"] = scenario["systems"]
        with self.assertRaisesRegex(ValueError, r"systems\.prey\.loop: the dict contains itself"):
            cosima.load(scenario)
        listed = [1, 2]
        listed.append(listed)
        with self.assertRaisesRegex(ValueError, r"x\[2\]: the list contains itself"):
            cosima.load(b3_dict(), overrides={"x": listed})

    def test_deep_nesting_is_named(self):
        deep = {}
        inner = deep
        for _ in range(100000):
            inner["a"] = {}
            inner = inner["a"]
        with self.assertRaisesRegex(ValueError, "nested deeper than 1000 levels"):
            cosima.load(b3_dict(), overrides={"deep": deep})
        deep_list = []
        for _ in range(100000):
            deep_list = [deep_list]
        scenario = b3_dict()
        scenario["deep"] = deep_list
        with self.assertRaisesRegex(ValueError, "nested deeper than 1000 levels"):
            cosima.load(scenario)


if __name__ == "__main__":
    unittest.main(argv=sys.argv)
