from lti_support import lti_env  # noqa: F401  (the fixture)
