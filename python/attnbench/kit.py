"""kit.py: the adapter kit (attnbench_adapter, adapters/PROTOCOL.md) as
attnbench.kit. Installed (pip or meson install) the kit is the top-level
module attnbench_adapter beside this package; in a checkout it is
adapters/attnbench_adapter.py, two folders up, found here so that
`sys.path.insert(0, "CHECKOUT/python")` is all a script needs.
"""
import os
import sys

try:
    from attnbench_adapter import *  # noqa: F401,F403
    import attnbench_adapter as _kit
except ImportError:
    _adapters = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "adapters")
    if not os.path.isfile(os.path.join(_adapters, "attnbench_adapter.py")):
        raise
    sys.path.insert(0, _adapters)
    from attnbench_adapter import *  # noqa: F401,F403
    import attnbench_adapter as _kit

# the names `import *` leaves out (leading underscore) that users need
AdapterError = _kit.AdapterError
TorchRunner, NumpyRunner = _kit.TorchRunner, _kit.NumpyRunner
serve, hello_line, hello_wanted, main, run = (_kit.serve, _kit.hello_line, _kit.hello_wanted,
                                              _kit.main, _kit.run)
