// Posts the signed deep-linking reply back to the LMS at once (the button stays for no-JS).
document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("lti-return");
  if (form) form.submit();
});
