"""A small user package for tests/live/test_packages.py: a helper module, a kernel module that
imports its helper, and a host module that launches the kernel of another module."""
