"""The committed out/ is what the committed spec, models, GPUs, templates and
engine produce: `gpusizer report --offline --check` exits 0. Regenerate with
`make report` and commit out/ when this fails. Skipped under a wrapper
(valgrind): the full default sweep is the plain run's job."""
import os
import subprocess

wrap = os.environ.get("GS_WRAP", "")
gs = os.environ.get("GPUSIZER", "./gpusizer")
if wrap:
    print("SKIP out/ current: the default sweep under %s (checked in the plain run)" % wrap.split()[0])
    raise SystemExit(0)
env = {k: v for k, v in os.environ.items() if k not in ("SOURCE_DATE_EPOCH", "GPUSIZER_MEASUREMENTS")}
r = subprocess.run([gs, "report", "--offline", "--check", "--quiet"], capture_output=True, text=True,
                   timeout=600, env=env)
if r.returncode == 0:
    print("PASS out/ current: report --check finds every committed report up to date")
    raise SystemExit(0)
print("FAIL out/ current: report --check exited %d (run `make report` and commit out/): %s"
      % (r.returncode, (r.stdout + r.stderr)[-600:]))
raise SystemExit(1)
