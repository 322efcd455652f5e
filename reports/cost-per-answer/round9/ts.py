# stderr of a command, each line prefixed with seconds since start
import subprocess, sys, time
t0 = time.perf_counter()
p = subprocess.Popen(sys.argv[1:], stderr=subprocess.PIPE, text=True)
for line in p.stderr:
    sys.stdout.write("%7.3f %s" % (time.perf_counter() - t0, line)); sys.stdout.flush()
sys.exit(p.wait())
