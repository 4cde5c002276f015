"""The one C extension, optional: where it does not compile, observation.py does the same in Python."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("fifthave_env._fastobs", ["fifthave_env/_fastobs.c"], optional=True)])
