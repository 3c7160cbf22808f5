# SPDX-License-Identifier: BSD-2-Clause
"""anysector's test library (Python 3 standard library only): what every harness under tests/
shares. README.md beside this file lists the modules and how a harness imports them."""
