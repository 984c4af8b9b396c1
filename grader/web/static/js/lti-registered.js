// LTI Dynamic Registration's last step: the tool is registered, so the LMS that framed this
// page is asked to close it (at once, and again from the button).
function closeRegistration() {
  window.parent.postMessage({ subject: "org.imsglobal.lti.close" }, "*");
}
document.addEventListener("DOMContentLoaded", () => {
  const button = document.getElementById("lti-close");
  if (button) button.addEventListener("click", closeRegistration);
  closeRegistration();
});
