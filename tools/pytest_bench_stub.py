"""Stand-in for pytest-benchmark's hook specifications (cuTile's conftest implements some)."""
import pytest


class _Spec:
    @pytest.hookspec
    def pytest_benchmark_update_json(self, config, benchmarks, output_json):
        pass

    @pytest.hookspec
    def pytest_benchmark_update_machine_info(self, config, machine_info):
        pass

    @pytest.hookspec
    def pytest_benchmark_generate_json(self, config, benchmarks, include_data, machine_info,
                                       commit_info):
        pass


def pytest_addhooks(pluginmanager):
    pluginmanager.add_hookspecs(_Spec)
