"""A check runs with BLAS on one thread (`proofs_checks.runner._one_blas_thread`, threadpoolctl) without walking every
loaded shared object for each check (issue 22, item 5): the libraries are found once, and again after an import."""
import sys
import types

from threadpoolctl import threadpool_info

from relucheck.proofs_checks import runner


def _blas_threads():
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def test_the_libraries_are_found_again_only_after_an_import_and_the_limit_is_undone(monkeypatch):
    runner._blas_libraries()  # SciPy's OpenBLAS loaded too, as the first check's limit does
    before = _blas_threads()
    with runner._one_blas_thread():
        assert set(_blas_threads()) == {1}
    found = runner._blas_controller[1]
    with runner._one_blas_thread():
        assert set(_blas_threads()) == {1}
    assert runner._blas_controller[1] is found  # nothing imported since: the same libraries
    monkeypatch.setitem(sys.modules, "relucheck_test_newly_imported", types.ModuleType("relucheck_test_newly_imported"))
    with runner._one_blas_thread():
        assert set(_blas_threads()) == {1}
    assert runner._blas_controller[1] is not found  # an import may have loaded a library: looked for again
    assert _blas_threads() == before
