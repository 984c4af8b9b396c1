"""Exercise kinds registered only in a test run: each a package of its own (its module, its page
module and styles, its tests), as a plugin's kind is. ``make test-kind-plugin`` runs the tests
that read the registry with one registered (``GRADER_KIND_MODULES``)."""
